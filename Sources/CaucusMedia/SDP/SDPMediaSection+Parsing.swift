extension SDPMediaSection {
    mutating func read(name: Substring, value: Substring, line: Int) throws(SDPParseError) {
        func malformed() -> SDPParseError { .malformedAttribute(name: String(name), line: line) }
        switch name {
        case "mid": mid = String(value)
        case "sendrecv", "sendonly", "recvonly", "inactive": direction = SDPDirection(rawValue: String(name))!
        case "rtcp-mux": rtcpMux = true
        case "ice-ufrag": iceUfrag = String(value)
        case "ice-pwd": icePwd = String(value)
        case "setup": setup = try Self.setupRole(value, line: line)
        case "fingerprint": fingerprints.append(try Self.fingerprint(value, line: line))
        case "extmap": extmaps.append(try Self.extmap(value, line: line))
        case "msid": msid = String(value)
        case "candidate": candidates.append(String(value))
        case "rid":
            // <id> <send|recv> [restrictions]
            let parts = value.split(separator: " ")
            guard parts.count >= 2 else { throw malformed() }
            if parts[1] == "send" { sendRIDs.append(String(parts[0])) }
        case "simulcast":
            // send <streams> [recv <streams>], or the reverse; streams separated by ";".
            let parts = value.split(separator: " ")
            guard parts.count % 2 == 0 else { throw malformed() }
            for index in stride(from: 0, to: parts.count, by: 2) where parts[index] == "send" {
                simulcastSend = parts[index + 1].split(separator: ";").compactMap { stream in
                    stream.split(separator: ",").first.map { String($0.hasPrefix("~") ? $0.dropFirst() : $0) }
                }
            }
        case "rtpmap":
            // <pt> <name>/<clock>[/<channels>]
            let parts = value.split(separator: " ", maxSplits: 1)
            guard parts.count == 2, let payloadType = UInt8(parts[0]), payloadType < 128 else { throw malformed() }
            let encoding = parts[1].split(separator: "/")
            guard encoding.count >= 2, let clockRate = Int(encoding[1]) else { throw malformed() }
            let channels = encoding.count > 2 ? Int(encoding[2]) : nil
            withCodec(payloadType) { codec in
                codec.name = String(encoding[0])
                codec.clockRate = clockRate
                codec.channels = channels
            }
        case "fmtp":
            let parts = value.split(separator: " ", maxSplits: 1)
            guard let first = parts.first, let payloadType = UInt8(first), payloadType < 128 else { throw malformed() }
            withCodec(payloadType) { $0.formatParameters = parts.count > 1 ? String(parts[1]) : "" }
        case "rtcp-fb":
            let parts = value.split(separator: " ", maxSplits: 1)
            guard parts.count == 2 else { throw malformed() }
            if parts[0] == "*" {
                // Applies to the codecs mapped so far, which in practice is all of them.
                for index in codecs.indices { codecs[index].feedback.append(String(parts[1])) }
            } else {
                guard let payloadType = UInt8(parts[0]), payloadType < 128 else { throw malformed() }
                withCodec(payloadType) { $0.feedback.append(String(parts[1])) }
            }
        case "ssrc":
            // <ssrc> <attribute>[:<value>]
            let parts = value.split(separator: " ", maxSplits: 1)
            guard let first = parts.first, let ssrc = UInt32(first) else { throw malformed() }
            let (attribute, attributeValue) = parts.count > 1 ? SessionDescription.splitAttribute(parts[1]) : ("", "")
            if attribute == "cname" || ssrcs[ssrc] == nil {
                ssrcs[ssrc] = attribute == "cname" ? String(attributeValue) : ""
            }
        case "ssrc-group":
            let tokens = value.split(separator: " ")
            guard let semantics = tokens.first else { throw malformed() }
            var members: [UInt32] = []
            for token in tokens.dropFirst() {
                guard let ssrc = UInt32(token) else { throw malformed() }
                members.append(ssrc)
            }
            ssrcGroups.append(SDPSSRCGroup(semantics: String(semantics), ssrcs: members))
        default:
            break
        }
    }

    /// Edits the codec entry for a payload type, created by whichever line names it first.
    private mutating func withCodec(_ payloadType: UInt8, _ edit: (inout SDPCodec) -> Void) {
        if let index = codecs.firstIndex(where: { $0.payloadType == payloadType }) {
            edit(&codecs[index])
        } else {
            var codec = SDPCodec(payloadType: payloadType, name: "", clockRate: 0)
            edit(&codec)
            codecs.append(codec)
        }
    }

    static func setupRole(_ value: Substring, line: Int) throws(SDPParseError) -> SDPSetupRole {
        guard let role = SDPSetupRole(rawValue: String(value)) else { throw .malformedAttribute(name: "setup", line: line) }
        return role
    }

    static func fingerprint(_ value: Substring, line: Int) throws(SDPParseError) -> SDPFingerprint {
        let parts = value.split(separator: " ")
        guard parts.count == 2 else { throw .malformedAttribute(name: "fingerprint", line: line) }
        return SDPFingerprint(algorithm: String(parts[0]), value: String(parts[1]))
    }

    static func extmap(_ value: Substring, line: Int) throws(SDPParseError) -> SDPExtmap {
        let parts = value.split(separator: " ", maxSplits: 2)
        let idAndDirection = parts.first?.split(separator: "/") ?? []
        guard parts.count >= 2, let first = idAndDirection.first, let id = UInt8(first), (1...255).contains(id) else {
            throw .malformedAttribute(name: "extmap", line: line)
        }
        let direction = idAndDirection.count > 1 ? SDPDirection(rawValue: String(idAndDirection[1])) : nil
        return SDPExtmap(id: id, direction: direction, uri: String(parts[1]), attributes: parts.count > 2 ? String(parts[2]) : nil)
    }
}
