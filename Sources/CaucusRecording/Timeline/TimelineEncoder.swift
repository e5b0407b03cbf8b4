import CaucusJSON

/// A timeline as JSON Lines: each event one JSON object on one line, ending in a newline.
/// JSON escapes every control character in a string, so no name or id can break a line.
public enum TimelineEncoder {
    public static func line(_ event: TimelineEvent) -> [UInt8] {
        var bytes: [UInt8] = []
        // Every value is a string or an integer: nothing here can make the encoder throw.
        try? StreamingJSONEncoder().encode(event, appendingTo: &bytes)
        bytes.append(UInt8(ascii: "\n"))
        return bytes
    }
}
