/// A session description (RFC 8866) read for WebRTC: session-level ICE, DTLS and BUNDLE
/// attributes, and the media sections. Unknown lines and attributes (simulcast, rid, rtcp-xr,
/// …) are skipped, so that offers from newer stacks still parse.
public struct SessionDescription: Hashable, Sendable {
    /// The mids of `a=group:BUNDLE`, first the one whose transport all share.
    public var bundleGroup: [String] = []
    public var iceLite = false
    public var media: [SDPMediaSection] = []

    public init(parsing text: String) throws(SDPParseError) {
        // CRLF is the standard; bare LF is common in hand-written and logged descriptions.
        // (Swift reads "\r\n" as one Character, which `isNewline` covers along with "\n".)
        let lines = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
        guard lines.first == "v=0" else { throw .missingVersion }
        var session = SessionLevel()
        for (index, line) in lines.enumerated() where !line.isEmpty {
            let number = index + 1
            guard line.count >= 2, line.dropFirst().first == "=", let type = line.first else {
                throw .malformedLine(line: number)
            }
            let value = line.dropFirst(2)
            switch type {
            case "m":
                media.append(try Self.mediaSection(value, line: number))
            case "a":
                let (name, attributeValue) = Self.splitAttribute(value)
                if media.isEmpty {
                    try session.read(name: name, value: attributeValue, line: number)
                } else {
                    try media[media.count - 1].read(name: name, value: attributeValue, line: number)
                }
            default:
                continue
            }
        }
        bundleGroup = session.bundleGroup
        iceLite = session.iceLite
        // Session-level ICE and DTLS attributes apply to sections that do not override them.
        for index in media.indices {
            media[index].iceUfrag = media[index].iceUfrag ?? session.iceUfrag
            media[index].icePwd = media[index].icePwd ?? session.icePwd
            media[index].setup = media[index].setup ?? session.setup
            if media[index].fingerprints.isEmpty { media[index].fingerprints = session.fingerprints }
            if media[index].extmaps.isEmpty { media[index].extmaps = session.extmaps }
            let formats = media[index].formats
            media[index].codecs.sort { first, second in
                (formats.firstIndex(of: String(first.payloadType)) ?? .max)
                    < (formats.firstIndex(of: String(second.payloadType)) ?? .max)
            }
        }
    }

    private struct SessionLevel {
        var bundleGroup: [String] = []
        var iceLite = false
        var iceUfrag: String?
        var icePwd: String?
        var setup: SDPSetupRole?
        var fingerprints: [SDPFingerprint] = []
        var extmaps: [SDPExtmap] = []

        mutating func read(name: Substring, value: Substring, line: Int) throws(SDPParseError) {
            switch name {
            case "group":
                let tokens = value.split(separator: " ")
                if tokens.first == "BUNDLE" { bundleGroup = tokens.dropFirst().map(String.init) }
            case "ice-lite": iceLite = true
            case "ice-ufrag": iceUfrag = String(value)
            case "ice-pwd": icePwd = String(value)
            case "setup": setup = try SDPMediaSection.setupRole(value, line: line)
            case "fingerprint": fingerprints.append(try SDPMediaSection.fingerprint(value, line: line))
            case "extmap": extmaps.append(try SDPMediaSection.extmap(value, line: line))
            default: break
            }
        }
    }

    static func splitAttribute(_ value: Substring) -> (name: Substring, value: Substring) {
        guard let colon = value.firstIndex(of: ":") else { return (value, "") }
        return (value[..<colon], value[value.index(after: colon)...])
    }

    private static func mediaSection(_ value: Substring, line: Int) throws(SDPParseError) -> SDPMediaSection {
        let tokens = value.split(separator: " ")
        guard tokens.count >= 4, let port = Int(tokens[1].split(separator: "/").first ?? ""), (0...65535).contains(port)
        else { throw .malformedMediaLine(line: line) }
        return SDPMediaSection(
            kind: String(tokens[0]), port: port, transportProtocol: String(tokens[2]),
            formats: tokens[3...].map(String.init))
    }
}
