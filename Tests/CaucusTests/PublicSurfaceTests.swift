import Testing

/// What an app that imports only `Caucus` can name: the session, its helpers, events and
/// snapshot and the values they speak in — and not the engine (the core's state machine and
/// the wire types), nor generic names that would clash with an app's own.
@Suite struct PublicSurfaceTests {
    static let engine = [
        "SessionState", "Command", "Event", "Audience", "SplitMix64", "SequencedEvent", "SessionSnapshot", "JoinRequest",
        "Principal", "Role", "Location", "Instant", "Identifier", "RequestFields", "ServerFrame", "ClientFrame", "WireEvent",
        // Times reach an app as `Date` and `Duration`: the core's instant is not exported under any name.
        "CaucusInstant",
        // The media transport under the SDK's media (imported `internal`): an app sees frames and users.
        "MediaClientPeer", "SDPOffer", "FrameAssembler", "RTPPacket", "RTCPPacket", "MediaSlot",
    ]

    @Test(arguments: engine)
    func anEngineNameIsNotReachable(_ name: String) async throws {
        let result = try await Typecheck.run("import Caucus\n\nlet type: Any.Type = \(name).self\n")
        #expect(!result.succeeded, "an app can name \(name)")
        #expect(result.output.contains("cannot find '\(name)' in scope"), "\(result.output)")
    }

    @Test func theValuesAnAppMeetsAreReachableByName() async throws {
        let result = try await Typecheck.run("""
            import Caucus

            let types: [Any.Type] = [
                CaucusSession.self, CaucusSession.Configuration.self, SessionEvent.self, SessionError.self, CaucusUser.self,
                SubsessionKit.self, UserID.self, RoomID.self, HelpRequestID.self, MessageID.self, CaucusRole.self,
                CaucusLocation.self, CaucusError.self, SessionMode.self, SessionSettings.self, SessionLimits.self,
                RoomDefinition.self, PlannedRoom.self, StartOptions.self, SubsessionStatus.self, ParentControl.self,
                BreakoutTimer.self, HelpRequest.self, HelpResult.self, ChatMessage.self, LeaveReason.self, UserMove.self,
                MediaKind.self, MediaKinds.self, ConnectionState.self, SessionLeftReason.self, SettingsChange.self,
                EndReason.self, RoomCreators.self, AudioHelper.self, VideoHelper.self, ShareHelper.self, EncodedFrame.self, RemoteFrame.self,
                MediaCodec.self, CaucusSession.Configuration.TrustRoot.self, CaucusSession.Configuration.TrustRoot.Unreadable.self,
            ]

            """)
        #expect(result.succeeded, "\(result.output)")
    }

    /// An app's media code, as docs/sdk-media.md shows it: its encoder's frames in, everyone
    /// else's out by user, with `import Caucus` alone.
    @Test func anAppsMediaCodeNeedsOnlyTheSDK() async throws {
        let result = try await Typecheck.run("""
            import Caucus

            func run(_ session: CaucusSession, opus: [UInt8], vp8: [UInt8], keyframe: Bool, n: UInt32) async throws {
                try await session.audioHelper.start(muted: false)
                try await session.videoHelper.start()
                try session.audioHelper.send(EncodedFrame(codec: .opus, bytes: opus, timestamp: 960 * n, isKeyframe: true))
                try session.videoHelper.send(EncodedFrame(codec: .vp8, bytes: vp8, captureTime: .milliseconds(66), isKeyframe: keyframe))
                for await _ in session.videoHelper.keyframeRequests { break }
                for await frame in session.mediaFrames {
                    let who: UserID = frame.user
                    let kind: MediaKind = frame.kind
                    print(who, kind, frame.frame.size, frame.frame.timestamp, frame.frame.isKeyframe, frame.frame.codec.clockRate)
                    break
                }
                for await frame in session.mediaFrames(from: UserID(7)) { print(frame.frame.bytes.count); break }
                try await session.audioHelper.mute()
                let muted: Bool = await session.audioHelper.isMuted
                print(muted, await session.videoHelper.isStarted)
                try await session.audioHelper.unmute()
                try await session.shareHelper.start()
                try session.shareHelper.send(EncodedFrame(codec: .vp8, bytes: vp8, timestamp: 0, isKeyframe: true))
                for await _ in session.shareHelper.keyframeRequests { break }
                let speakers: [UserID]? = await session.audioHelper.activeSpeakers.first { _ in true }
                let undecodable: [UserID: MediaKinds]? = await session.unplayableMedia.first { _ in true }
                print(undecodable as Any)
                print(speakers as Any, await session.shareHelper.isStarted, MediaKind.screenShare)
                try await session.shareHelper.stop()
                try await session.videoHelper.stop()
                try await session.audioHelper.stop()
            }

            """, asLibrary: true)
        #expect(result.succeeded, "\(result.output)")
    }

    /// What an app displays is a `Date` or a `Duration`, and events compare with `==`.
    @Test func timesAreDatesAndDurationsAndEventsAreEquatable() async throws {
        let result = try await Typecheck.run("""
            import Caucus
            import Foundation

            func show(_ user: CaucusUser, _ timer: BreakoutTimer, _ message: ChatMessage, _ snapshot: CaucusSession.Snapshot) {
                let joined: Date = user.joinedAt
                let ends: Date = timer.endsAt
                let warnings: [Duration] = timer.pendingWarnings
                let left: Duration = timer.remaining()
                let sent: Date = message.sentAt
                let stops: Date? = snapshot.stopsAt
                let countdown: Duration = snapshot.settings.countdown
                let warned: [Duration] = snapshot.settings.timerWarnings
                print(joined, ends, warnings, left, sent, stops as Any, countdown, warned)
            }

            func warning(_ event: SessionEvent) -> Duration? {
                if case .timerWarning(let remaining) = event { return remaining }
                return nil
            }

            func same(_ one: SessionEvent, _ other: SessionEvent) -> Bool { one == other }

            """)
        #expect(result.succeeded, "\(result.output)")
    }

    /// The engine's members do not reach an app through the values it can name: the failure
    /// status of a `Command`, and the bare role's `isManaging` (a user has `canManageSubsessions`).
    @Test(arguments: [
        ("let status = CaucusError.failureStatus(of: .commit)", "failureStatus"),
        ("func manages(_ user: CaucusUser) -> Bool { user.role.isManaging }", "isManaging"),
        ("func manages(_ role: CaucusRole) -> Bool { role.isManaging }", "isManaging"),
    ])
    func anEngineMemberIsNotReachable(_ line: String, _ member: String) async throws {
        let result = try await Typecheck.run("import Caucus\n\n\(line)\n")
        #expect(!result.succeeded, "an app can write \(line)")
        #expect(result.output.contains("'\(member)' is inaccessible") || result.output.contains("has no member '\(member)'"), "\(result.output)")
    }

    /// The types that appear in the SDK's signatures can be named, the reasons included, and
    /// what the engine hid has its public counterpart.
    @Test func whatTheSignaturesSpeakInCanBeNamed() async throws {
        let result = try await Typecheck.run("""
            import Caucus

            func why(_ reason: SessionLeftReason) -> EndReason? {
                if case .sessionEnded(let ended) = reason { return ended }
                return nil
            }

            func whoCreates(_ settings: SessionSettings) -> RoomCreators { settings.roomCreators }

            func manages(_ user: CaucusUser) -> Bool { user.canManageSubsessions }

            func role(_ snapshot: CaucusSession.Snapshot) -> (CaucusRole, CaucusLocation) { (snapshot.myRole, snapshot.location) }

            """)
        #expect(result.succeeded, "\(result.output)")
    }

    /// docs/sdk-media.md's first block compiles as an app writes it (a frame counter is an
    /// `Int`), with the app's own encoder and decoders around it; the helpers' state reads
    /// are `await`ed and one user's frames are an `AsyncStream`, as its table says.
    @Test func theMediaGuidesSnippetCompilesAsWritten() async throws {
        let guide = try String(contentsOf: Typecheck.root.appendingPathComponent("docs/sdk-media.md"), encoding: .utf8)
        let block = try #require(guide.components(separatedBy: "```swift\n").dropFirst().first?.components(separatedBy: "\n```").first)
        let result = try await Typecheck.run("""
            import Caucus

            final class Encoder: Sendable { func forceKeyframe() {} }
            final class Decoder: Sendable { func decode(_ bytes: [UInt8]) {} }
            struct Decoders: Sendable { subscript(user: UserID, kind: MediaKind) -> Decoder { Decoder() } }

            func app(session: CaucusSession, opusPacket: [UInt8], vp8Frame: [UInt8], n: Int, elapsed: Duration, isKey: Bool,
                     encoder: Encoder, decoders: Decoders) async throws {
            \(block)
                let started: Bool = await session.audioHelper.isStarted
                let muted: Bool = await session.audioHelper.isMuted
                let video: Bool = await session.videoHelper.isStarted
                let one: AsyncStream<RemoteFrame> = session.mediaFrames(from: UserID(7))
                print(started, muted, video, one)
            }

            """)
        #expect(result.succeeded, "\(result.output)")
    }

    /// An app's own library can speak in the SDK's values in its public signatures, with
    /// `import Caucus` alone.
    @Test func anAppsLibraryCanPutTheSDKsValuesInItsPublicSignatures() async throws {
        let result = try await Typecheck.run(
            """
            import Caucus

            public struct Refusal: Error {
                public let code: CaucusError.Code
                public let user: UserID?
                public let role: CaucusRole
                public init(code: CaucusError.Code, user: UserID?, role: CaucusRole) {
                    self.code = code
                    self.user = user
                    self.role = role
                }
            }

            public func isPasswordProblem(_ code: CaucusError.Code) -> Bool { code == .needPassword || code == .passwordWrong }

            public func code(of error: SessionError) -> CaucusError.Code? { error.code }

            """, asLibrary: true)
        #expect(result.succeeded, "\(result.output)")
    }

    /// A file that imports the core beside the SDK (as a library built for library evolution
    /// must) sees each value under one name, the SDK's aliases being the core's — but for
    /// `CaucusError`, the SDK's namespace beside the core's error, which it writes qualified
    /// (docs/sdk.md says so).
    @Test func theCoreImportedBesideTheSDKMakesNoNameAmbiguous() async throws {
        let result = try await Typecheck.run(
            """
            import Caucus
            import CaucusCore

            public func isPasswordProblem(_ code: Caucus.CaucusError.Code) -> Bool { code == .needPassword || code == .passwordWrong }
            public func code(of error: SessionError) -> Caucus.CaucusError.Code? { error.code }
            public func who(_ user: CaucusUser) -> UserID { user.id }
            public func why(_ reason: SessionLeftReason) -> String { String(describing: reason) }
            public let kinds: [Any.Type] = [RoomID.self, EndReason.self, LeaveReason.self, MediaKind.self, SessionSettings.self]

            """, asLibrary: true)
        #expect(result.succeeded, "\(result.output)")
    }

    /// The SDK's declarations show the names an app writes: `CaucusRole` and `CaucusLocation`,
    /// never the core's `Role` and `Location` (which an app cannot write). Read from the
    /// symbol graph of the built module, as documentation and code completion show it.
    @Test func declarationsShowTheNamesAnAppWrites() async throws {
        // An alias's own declaration names what it stands for (`CaucusRole = Role`): that is its point.
        let symbols = try await Typecheck.publicSymbols(of: "Caucus").filter { $0.kind != "swift.typealias" }
        let shown = symbols.flatMap { symbol in symbol.typeNames.map { (symbol.path, $0) } }
        #expect(!shown.isEmpty)
        let hidden = shown.filter { PublicSurfaceTests.engine.contains($0.1) }
        #expect(hidden.isEmpty, "declarations that show an engine name: \(hidden)")
    }

    /// A delegate written for `usersDidLeave`'s old shape (before it gained `reason:`) does
    /// not compile, rather than compiling and never being called.
    @Test func aDelegateWithTheOldShapeOfARenamedCallbackDoesNotCompile() async throws {
        let old = try await Typecheck.run("""
            import Caucus

            @MainActor final class Roster: CaucusSessionDelegate {
                func session(_ session: CaucusSession, usersDidLeave users: [CaucusUser]) { print(users) }
            }

            """)
        #expect(!old.succeeded, "the old shape compiled")
        #expect(old.output.contains("usersDidLeave:reason:"), "\(old.output)")
        let new = try await Typecheck.run("""
            import Caucus

            @MainActor final class Roster: CaucusSessionDelegate {
                func session(_ session: CaucusSession, usersDidLeave users: [CaucusUser], reason: LeaveReason) { print(users, reason) }
            }

            """)
        #expect(new.succeeded, "\(new.output)")
    }
}
