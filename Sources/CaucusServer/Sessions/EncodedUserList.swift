import CaucusCore
import CaucusJSON

/// A session's user list kept encoded between join replies. Every join reply carries everyone
/// present (the snapshot is always right), so in a storm into a session of 1,000 each reply
/// re-encoded up to 1,000 users; but each reply's list is the last one plus the joiner. This
/// keeps the users as last encoded and re-encodes only from the first that differs.
///
/// Correct whatever changed: each user is compared with the one encoded in its place, so a
/// rename, a move or a departure only costs re-encoding from there on. Used by one session's
/// encoding, on its actor only.
final class EncodedUserList {
    private var users: [UserView] = []
    /// Where each user's JSON ends in `json`.
    private var ends: [Int] = []
    /// `[` and the users' JSON, comma-separated, without the closing bracket.
    private var json: [UInt8] = [UInt8(ascii: "[")]

    var byteCount: Int { json.count + 1 }

    /// Appends `users` as a JSON array to `bytes`.
    func write(_ current: [UserView], into bytes: inout [UInt8], with encoder: StreamingJSONEncoder) {
        var kept = 0
        let comparable = min(users.count, current.count)
        while kept < comparable, users[kept] == current[kept] { kept += 1 }
        if kept < users.count {
            json.removeSubrange((kept == 0 ? 1 : ends[kept - 1])...)
            users.removeSubrange(kept...)
            ends.removeSubrange(kept...)
        }
        for user in current[kept...] {
            if !users.isEmpty { json.append(UInt8(ascii: ",")) }
            // Encoding our own value type cannot fail.
            try? encoder.encode(user, appendingTo: &json)
            users.append(user)
            ends.append(json.count)
        }
        bytes += json
        bytes.append(UInt8(ascii: "]"))
    }
}
