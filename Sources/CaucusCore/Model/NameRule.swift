/// What a name may be: a session's, a user's, a subsession's. Names are shown to other people
/// in lists, rooms and chat, so a name must show itself: it needs at least one visible
/// character, and it may not hold characters that hide, reorder or break the text around it.
///
/// - **Refused anywhere in a name:** control characters (C0 including NUL, tab and line feed,
///   DEL, C1), the line and paragraph separators U+2028 and U+2029, and the bidirectional
///   embeddings, overrides and isolates U+202A–U+202E and U+2066–U+2069 (they can make a name
///   read backwards, or reorder whatever is shown after it).
/// - **Not visible:** white space, format characters (zero-width space, joiners, word joiner,
///   byte-order mark, …), other default-ignorable code points (fillers, variation selectors),
///   combining marks standing alone, unassigned code points, and the blank braille pattern
///   U+2800. A name made only of these is refused as empty. They remain allowed next to a
///   visible character (a zero-width joiner inside an emoji, an accent on a letter).
public enum NameRule {
    public enum Verdict: Equatable, Sendable {
        case acceptable
        case noVisibleCharacter
        case forbidden(Unicode.Scalar)
    }

    public static func check(_ name: String) -> Verdict {
        var visible = false
        for scalar in name.unicodeScalars {
            if isForbidden(scalar) { return .forbidden(scalar) }
            if !visible && isVisible(scalar) { visible = true }
        }
        return visible ? .acceptable : .noVisibleCharacter
    }

    public static func isForbidden(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }

    public static func isVisible(_ scalar: Unicode.Scalar) -> Bool {
        let properties = scalar.properties
        if properties.isWhitespace || properties.isDefaultIgnorableCodePoint || scalar.value == 0x2800 { return false }
        switch properties.generalCategory {
        case .control, .format, .nonspacingMark, .spacingMark, .enclosingMark, .spaceSeparator, .lineSeparator,
            .paragraphSeparator, .surrogate, .unassigned:
            return false
        default:
            return true
        }
    }

    /// How a refused scalar is named in a message: `U+202E`.
    public static func describe(_ scalar: Unicode.Scalar) -> String {
        let hex = String(scalar.value, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }
}

extension NameRule {
    /// Checks `name`, calling it `what` in the message ("The user name"), with `emptyCode` for
    /// a name without a visible character.
    static func validate(_ name: String, _ what: String, emptyCode: CaucusError.Code) throws(CaucusError) {
        switch check(name) {
        case .acceptable: return
        case .noVisibleCharacter:
            throw CaucusError(emptyCode, "\(what) is empty or has no visible character.")
        case .forbidden(let scalar):
            throw CaucusError(
                .nameCharacterForbidden,
                "\(what) holds \(describe(scalar)): names may not hold control characters, line breaks or bidirectional controls.")
        }
    }
}
