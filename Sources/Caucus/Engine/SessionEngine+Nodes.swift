import CaucusCore
import CaucusProtocol

/// Several nodes (docs/protocol.md, "Several nodes"): a session is served by one node at a
/// time. A join or resume that reaches another node is refused with `otherNode` and that
/// node's URL, which the SDK follows; when the serving node cannot be reached, reconnecting
/// tries the app's entry URL and `Configuration.nodeURLs` in turn, one of which takes the
/// session over once the dead node's lease has expired.
extension SessionEngine {
    /// How many `otherNode` redirects one attempt follows: one is normal; more means nodes
    /// disagree for a moment (a takeover under way), and the next attempt asks again.
    static let redirectLimit = 3

    /// The node a refusal sends the client to, if it is an `otherNode` one.
    static func redirect(_ result: Result<ReplyResult, SessionError>) -> String? {
        guard case .failure(.refused(let error)) = result, error.errorCode == .otherNode else { return nil }
        return error.nodeURL?.absoluteString
    }

    /// The entry URLs a join starts from: the app's, then `Configuration.nodeURLs`.
    func setEntries(_ url: String) {
        entryURLs = [url] + configuration.nodeURLs.map(\.absoluteString).filter { $0 != url }
        nextEntry = 0
    }

    /// `url` could not be reached: the next entry URL, in turn.
    func nextEntryURL() -> String {
        guard !entryURLs.isEmpty else { return url }
        defer { nextEntry = (nextEntry + 1) % entryURLs.count }
        return entryURLs[nextEntry]
    }

    /// Connects to the first entry URL that answers (the app's, then the others).
    func connectToAnEntry() async throws(SessionError) -> Socket {
        var failure = SessionError.connectionFailed("no URL to connect to")
        for candidate in entryURLs {
            do throws(SessionError) {
                let socket = try await Socket.connect(to: candidate, configuration: configuration)
                url = candidate
                return socket
            } catch {
                failure = error
            }
        }
        throw failure
    }

    /// Leaves `socket` for a new connection to `next`, the node serving the session.
    func move(from socket: Socket, to next: String) async throws(SessionError) -> Socket {
        if self.socket === socket { self.socket = nil }
        socket.close()
        let moved = try await Socket.connect(to: next, configuration: configuration)
        url = next
        attach(moved)
        return moved
    }
}
