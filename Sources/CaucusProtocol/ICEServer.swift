/// A TURN server a client may relay its media through, as an `RTCIceServer` takes it: its
/// URLs (`turn:` or `turns:`), and a time-limited username and credential that the server
/// minted for this user (docs/protocol.md, "TURN servers"). The same credentials serve every URL.
public struct ICEServer: Sendable, Equatable, Codable {
    public let urls: [String]
    public let username: String
    public let credential: String

    public init(urls: [String], username: String, credential: String) {
        self.urls = urls
        self.username = username
        self.credential = credential
    }
}
