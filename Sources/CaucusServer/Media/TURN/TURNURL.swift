/// A TURN server's URL as RFC 7065 writes it and an `RTCIceServer` takes it:
/// `turn:host[:port][?transport=udp|tcp]` or `turns:host[:port][?transport=tcp]` (TLS). The
/// host is a name, an IPv4 address or a bracketed IPv6 one. Checked when `caucus serve` starts,
/// so a mistyped URL stops it there instead of reaching every browser; handed out as written.
struct TURNURL: Sendable, Hashable, CustomStringConvertible {
    /// The URL as given.
    let text: String
    /// Over TLS (`turns:`).
    let secure: Bool
    let host: String
    let port: Int?
    /// `udp` or `tcp`, when the URL names it.
    let transport: String?

    var description: String { text }

    init(_ text: String) throws(ServerConfigurationError) {
        func refuse(_ why: String) -> ServerConfigurationError {
            ServerConfigurationError(
                "--turn-url \(text): \(why). A TURN URL is turn:host[:port][?transport=udp|tcp] or turns:host[:port][?transport=tcp].")
        }
        let lowered = text.lowercased()
        let scheme: String
        if lowered.hasPrefix("turns:") {
            scheme = "turns"
        } else if lowered.hasPrefix("turn:") {
            scheme = "turn"
        } else {
            throw refuse("not a turn: or turns: URL")
        }
        var rest = Substring(text.dropFirst(scheme.count + 1))
        var transport: String?
        if let question = rest.firstIndex(of: "?") {
            let query = rest[rest.index(after: question)...].lowercased()
            guard query.hasPrefix("transport="), ["udp", "tcp"].contains(query.dropFirst("transport=".count)) else {
                throw refuse("the only query is ?transport=udp or ?transport=tcp")
            }
            transport = String(query.dropFirst("transport=".count))
            rest = rest[..<question]
        }
        var host = rest
        var portText: Substring?
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else { throw refuse("an IPv6 address lacks its closing ]") }
            host = rest[rest.index(after: rest.startIndex)..<close]
            let after = rest[rest.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw refuse("only :port may follow the host") }
                portText = after.dropFirst()
            }
        } else if let colon = rest.firstIndex(of: ":") {
            host = rest[..<colon]
            portText = rest[rest.index(after: colon)...]
        }
        let allowed = { (character: Character) in
            character.isASCII && (character.isLetter || character.isNumber || "-._:".contains(character))
        }
        guard !host.isEmpty, host.allSatisfy(allowed), rest.hasPrefix("[") || !host.contains(":") else {
            throw refuse("the host must be a name or an IP address (an IPv6 one in brackets), with no user, path or spaces")
        }
        var port: Int?
        if let portText {
            guard portText.allSatisfy(\.isASCII), let number = Int(portText), (1...65535).contains(number) else {
                throw refuse("the port is a number from 1 to 65535")
            }
            port = number
        }
        if scheme == "turns" && transport == "udp" {
            throw refuse("turns: runs over TLS, on TCP: browsers do not relay through TURN over DTLS")
        }
        self.text = text
        self.secure = scheme == "turns"
        self.host = String(host)
        self.port = port
        self.transport = transport
    }
}
