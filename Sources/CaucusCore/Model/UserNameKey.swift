/// Names are unique among a session's present users, so that nobody can join as a second
/// "Ms Rivera" next to the teacher. Two names are the same when they read the same: compared
/// without case, with runs of white space read as one space and none at either end, and with
/// format and default-ignorable characters (zero-width spaces, joiners) left out, since
/// these change nothing on screen.
public enum UserNameKey {
    /// The form two names share when they read the same.
    public static func key(_ name: String) -> String {
        var key = String.UnicodeScalarView()
        var gap = false
        for scalar in name.lowercased().unicodeScalars {
            let properties = scalar.properties
            if properties.isWhitespace || properties.generalCategory == .spaceSeparator {
                gap = !key.isEmpty
                continue
            }
            if properties.isDefaultIgnorableCodePoint || properties.generalCategory == .format { continue }
            if gap {
                key.append(" ")
                gap = false
            }
            key.append(scalar)
        }
        return String(key)
    }

    public static func matches(_ lhs: String, _ rhs: String) -> Bool { key(lhs) == key(rhs) }
}
