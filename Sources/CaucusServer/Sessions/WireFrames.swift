import CaucusCore
import CaucusJSON
import CaucusProtocol
import NIOCore

/// Frames as the server sends them: JSON text frames, framed once (see `ServerFrames`).
struct WireFrames: SessionFrameEncoding {
    let encoder = StreamingJSONEncoder.caucus
    /// The session's user list as last encoded for a join reply.
    let userList = EncodedUserList()

    func frame(_ frame: ServerFrame) -> ByteBuffer { SessionActor.encode(frame, with: encoder) }

    func byteCount(of frame: ByteBuffer) -> Int { frame.readableBytes }

    /// The join reply, with the user list spliced in from `userList`: in a storm into a big
    /// session, encoding everyone present for every joiner was the largest cost of a join.
    /// Byte for byte what `frame(_:)` gives (`WireFramesTests`).
    func joinedReply(re requestID: Int, user: UserID, secret: String, snapshot: SessionSnapshot, iceServers: [ICEServer]) -> ByteBuffer {
        let joined = { (snapshot: SessionSnapshot) in
            ServerFrame.reply(re: requestID, result: .joined(user: user, secret: secret, snapshot: snapshot, iceServers: iceServers))
        }
        let listless = joined(snapshot.replacingUsers(with: []))
        var bytes = [UInt8](repeating: 0, count: ServerFrames.headroom)
        try? encoder.encode(listless, appendingTo: &bytes)
        // The snapshot's `users` is the first member named so (the reply's `user`, `secret`,
        // the snapshot's scalars, settings and limits come before it; `iceServers` after it has
        // none), and the pattern cannot occur inside a JSON string, where every quote is escaped.
        guard let empty = bytes.firstRange(of: Self.emptyUsers) else {
            return frame(joined(snapshot))
        }
        var spliced: [UInt8] = []
        spliced.reserveCapacity(bytes.count + userList.byteCount + 2)
        spliced += bytes[..<(empty.upperBound - 2)]
        userList.write(snapshot.users, into: &spliced, with: encoder)
        spliced += bytes[empty.upperBound...]
        return ServerFrames.text(reservedFront: spliced)
    }

    private static let emptyUsers = Array(#""users":[]"#.utf8)
}
