/// Session names are unique per app and compared case-insensitively.
public enum SessionName {
    /// The form two names share when they name the same session.
    public static func key(_ name: String) -> String { name.lowercased() }

    public static func matches(_ lhs: String, _ rhs: String) -> Bool { key(lhs) == key(rhs) }
}
