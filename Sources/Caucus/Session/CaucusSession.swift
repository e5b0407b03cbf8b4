import CaucusCore
import Foundation
import NIOConcurrencyHelpers

/// A Caucus session, as one user takes part in it.
///
/// ```swift
/// let session = CaucusSession()
/// Task { for await event in session.events { print(event) } }
/// try await session.join(url: server, sessionName: "Class", userName: "Ada", token: jwt)
/// try await session.subsessionHelper?.addToPreList("Red", "Blue")
/// try await session.subsessionHelper?.commit()
/// try await session.subsessionManager?.start()
/// ```
///
/// Every call returns once the server has carried it out (or throws its refusal), and by then
/// `snapshot` shows the result. Events arrive through `events` (an `AsyncStream`, as many as
/// you like) or the `delegate`. A dropped connection is restored by itself: the user keeps
/// their seat and receives every event they missed.
public final class CaucusSession: Sendable {
    public let configuration: Configuration
    let engine: SessionEngine
    let media: MediaEngine
    private let hub: EventHub
    private let delegateBox = NIOLockedValueBox(WeakDelegate())

    private struct WeakDelegate {
        weak var value: (any CaucusSessionDelegate)?
    }

    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        hub = EventHub()
        engine = SessionEngine(configuration: configuration, hub: hub)
        media = MediaEngine(session: engine)
        media.followMutes(hub.subscribe())
        // The delegate hears events on the main actor, one at a time, in order.
        Task { [weak self, queue = hub.delegateQueue] in
            for await event in queue {
                guard let self else { return }
                guard let delegate = self.delegate else { continue }
                await delegate.deliver(event, from: self)
            }
        }
    }

    deinit {
        let engine = engine
        Task { await engine.shutdown() }
    }

    // MARK: - Events

    /// A new stream of every event from now on. Subscribe before `join` to hear it.
    public var events: AsyncStream<SessionEvent> { hub.subscribe() }

    /// Receives the events as callbacks on the main actor. Held weakly.
    public var delegate: (any CaucusSessionDelegate)? {
        get { delegateBox.withLockedValue { $0.value } }
        set {
            delegateBox.withLockedValue { $0.value = newValue }
            hub.setDelegateAttached(newValue != nil)
        }
    }

    // MARK: - State

    public var connectionState: ConnectionState { engine.published.connection }
    /// The session as this user sees it now; nil when not in a session: before `join`, and
    /// from `sessionLeft` on (after `leave()`, removal, the session's end or a lost
    /// connection), when the role and room handles below are nil too.
    public var snapshot: Snapshot? { engine.published.snapshot(engine: engine) }
    /// This user; nil when not in a session.
    public var myself: CaucusUser? { snapshot?.myself }
    /// Everyone else in the session.
    public var remoteUsers: [CaucusUser] { snapshot?.remoteUsers ?? [] }

    // MARK: - Joining and leaving

    /// Joins `sessionName` on the server at `url` (`ws://host:port/ws`), creating the session
    /// if none is active with that name.
    ///
    /// - Parameters:
    ///   - token: the JWT for this session (HS256 with the app's secret).
    ///   - password: the session's password; a session created with one is private.
    ///   - passwordHandler: asked for a password when the server says one is needed or was
    ///     wrong; return nil to give up. Without it, the delegate is asked.
    /// - Returns: the session as it was on joining.
    @discardableResult
    public func join(
        url: URL, sessionName: String, userName: String, token: String, password: String? = nil,
        passwordHandler: (@Sendable (PasswordPrompt) async -> String?)? = nil
    ) async throws(SessionError) -> Snapshot {
        let ask: SessionEngine.PasswordSource = { [weak self] prompt in
            if let passwordHandler { return await passwordHandler(prompt) }
            guard let self, let delegate = self.delegate else { return nil }
            switch prompt {
            case .needed: return await delegate.sessionNeedsPassword(self)
            case .wrong: return await delegate.sessionPasswordWasWrong(self)
            }
        }
        return try await engine.join(
            url: url.absoluteString, sessionName: sessionName, userName: userName, token: token, password: password,
            askPassword: ask)
    }

    /// Leaves the session. The host may end it for everyone with `endSession`.
    ///
    /// Returns once the server has let go of the seat; or, while the connection is down (the
    /// session is reconnecting, or the connection died without a word and the leave got no
    /// answer within `connectTimeout`), at once: the session is over for this user there and
    /// then (`sessionLeft(.left)`, no snapshot). The server learns it when the connection
    /// returns while it still holds the seat (the SDK keeps trying in the background, for as
    /// long as it would have tried to reconnect, and the others hear that the user left), or
    /// else when the seat expires after its reconnect grace (the others hear `timedOut`). A
    /// host's `endSession` made offline ends the session only if it gets through that way.
    public func leave(endSession: Bool = false) async throws(SessionError) {
        try await engine.leave(endSession: endSession)
    }

    // MARK: - Network changes

    /// Tells the session the device's network changed (the path came back, or moved to
    /// another interface) or the app returned to the foreground: its connection may have died
    /// without a word, and the keepalive that would notice may be `pingInterval` away.
    ///
    /// Connected, the session pings the server at once (bounded by `connectTimeout`); if no
    /// answer comes, it drops the connection and resumes its seat on a new one, as after any
    /// drop: same user, same room, every missed event. Reconnecting, it gives up the attempt
    /// under way (waiting out its backoff, opening, or resuming on a socket that may have died
    /// with the old path) and makes a new one now. Otherwise it does nothing. Returns once the check is
    /// done (at once if one is already under way). A connection that answers is kept, so
    /// calling it when nothing happened costs a ping.
    ///
    /// On Apple platforms the SDK calls this itself, from Network.framework's path monitor and
    /// UIKit's foreground notification, while the session is joined. Elsewhere, or if the app
    /// learns of a change the monitor does not report (a VPN coming up), the app may call it.
    public func networkDidChange() async {
        await engine.networkChanged()
    }

    // MARK: - Helpers

    /// Roles and users (host): managers, host hand-over, renaming, removing.
    public var userHelper: UserHelper { UserHelper(engine: engine) }
    /// The pre-list, commit and withdraw: while this user is the host or a manager, else nil
    /// (as Zoom's `getSubSessionHelper()`). It appears when this user is made a manager or the
    /// host, and goes when they stop being one. Planning and committing are the host's: a
    /// manager holds the helper to read the committed list, and the server refuses the rest
    /// with `notPermitted`.
    public var subsessionHelper: SubsessionHelper? {
        snapshot?.myRole.isManaging == true ? SubsessionHelper(engine: engine) : nil
    }
    /// Start, stop, broadcast and moves: while this user is the host or a manager, else nil.
    public var subsessionManager: SubsessionManager? {
        snapshot?.myRole.isManaging == true ? SubsessionManager(engine: engine) : nil
    }
    /// Return to main and request help: while this user is in a subsession, else nil.
    public var subsessionParticipant: SubsessionParticipant? {
        snapshot?.mySubsession.map { SubsessionParticipant(subsession: $0, engine: engine) }
    }
    /// The create-and-invite flow.
    public var breakoutRooms: BreakoutRooms { BreakoutRooms(engine: engine) }
    /// Chat in this user's room, and direct messages.
    public var chat: Chat { Chat(engine: engine) }

    // MARK: - Session settings

    /// Changes the named settings (host); the rest stay.
    public func updateSettings(_ change: SettingsChange) async throws(SessionError) {
        try await engine.perform(.updateSettings(change))
    }

    /// Switches between group mode (breakouts allowed) and lecture mode (host).
    public func setMode(_ mode: SessionMode) async throws(SessionError) {
        try await engine.perform(.setMode(mode))
    }

    // MARK: - Media

    /// Says what this user publishes from now on (the whole set: leave `.audio` out to mute
    /// the microphone). Everyone hears it as `SessionEvent.mediaChanged`.
    public func publish(_ media: MediaKinds) async throws(SessionError) {
        try await engine.perform(.publish(media))
    }
}
