/// A user name may not end with a mark the console writes after a name from its user's role
/// ("(Host)", "(Manager)", "(Co-host)", "(you)"): a participant named "Ms Rivera (Host)" would
/// read as the host wherever names are listed. Compared as names are (``UserNameKey``: without
/// case, white space or invisible characters), so "ms rivera ( HOST )" is refused too; a mark
/// anywhere but the end ("(Host) fan club", "Ms Rivera (hostess)") is another name. Names that
/// only look alike (other scripts' letters) are not caught here: the role the console shows is
/// the server's, never read from a name.
public enum RoleMarkRule {
    /// The marks, as ``UserNameKey`` writes them, spaces removed.
    static let marks = ["(host)", "(manager)", "(co-host)", "(cohost)", "(you)"]

    /// The mark `name` ends with, if any, as it is written in ``marks``.
    public static func mark(endingWith name: String) -> String? {
        let compact = String(UserNameKey.key(name).unicodeScalars.filter { $0 != " " })
        return marks.first { compact.hasSuffix($0) }
    }
}
