/// An IP address and UDP port, as STUN carries them and ICE pairs them.
public struct TransportAddress: Hashable, Sendable, CustomStringConvertible {
    public var ip: IPAddress
    public var port: UInt16

    public init(ip: IPAddress, port: UInt16) {
        self.ip = ip
        self.port = port
    }

    public var description: String {
        switch ip {
        case .v4: "\(ip):\(port)"
        case .v6: "[\(ip)]:\(port)"
        }
    }
}

/// An IPv4 or IPv6 address in network byte order.
public enum IPAddress: Hashable, Sendable, CustomStringConvertible {
    case v4(UInt32)
    case v6(high: UInt64, low: UInt64)

    /// Parses dotted-quad IPv4 or RFC 4291 text IPv6 (with `::`, without a zone).
    public init?(_ text: String) {
        if text.contains(":") {
            guard let address = Self.parseIPv6(text) else { return nil }
            self = address
        } else {
            let parts = text.split(separator: ".", omittingEmptySubsequences: false)
            guard parts.count == 4 else { return nil }
            var value: UInt32 = 0
            for part in parts {
                guard part.count <= 3, let octet = UInt8(part) else { return nil }
                value = value << 8 | UInt32(octet)
            }
            self = .v4(value)
        }
    }

    public var bytes: [UInt8] {
        var result: [UInt8] = []
        switch self {
        case .v4(let value):
            result.appendBigEndian(value)
        case .v6(let high, let low):
            result.appendBigEndian(high)
            result.appendBigEndian(low)
        }
        return result
    }

    public var description: String {
        switch self {
        case .v4(let value):
            return (0..<4).map { String(UInt8(truncatingIfNeeded: value >> (24 - 8 * $0))) }.joined(separator: ".")
        case .v6(let high, let low):
            let groups = (0..<8).map { index -> UInt16 in
                let half = index < 4 ? high : low
                return UInt16(truncatingIfNeeded: half >> (48 - 16 * (index % 4)))
            }
            return Self.compressed(groups)
        }
    }

    private static func parseIPv6(_ text: String) -> IPAddress? {
        let halves = text.split(separator: "::", omittingEmptySubsequences: false).map(String.init)
        guard halves.count <= 2 else { return nil }
        func groups(_ part: String) -> [UInt16]? {
            if part.isEmpty { return [] }
            var result: [UInt16] = []
            for group in part.split(separator: ":", omittingEmptySubsequences: false) {
                guard (1...4).contains(group.count), let value = UInt16(group, radix: 16) else { return nil }
                result.append(value)
            }
            return result
        }
        guard let head = groups(halves[0]) else { return nil }
        var all = head
        if halves.count == 2 {
            guard let tail = groups(halves[1]), head.count + tail.count <= 7 else { return nil }
            all += Array(repeating: 0, count: 8 - head.count - tail.count) + tail
        }
        guard all.count == 8 else { return nil }
        let high = all[0..<4].reduce(UInt64(0)) { $0 << 16 | UInt64($1) }
        let low = all[4..<8].reduce(UInt64(0)) { $0 << 16 | UInt64($1) }
        return .v6(high: high, low: low)
    }

    /// RFC 5952 text: lower case, the longest run of two or more zero groups as `::`.
    private static func compressed(_ groups: [UInt16]) -> String {
        var bestStart = -1, bestLength = 0, runStart = -1
        // A sentinel non-zero group at index 8 closes a trailing run.
        for index in 0...8 {
            if index < 8, groups[index] == 0 {
                if runStart < 0 { runStart = index }
            } else if runStart >= 0 {
                if index - runStart > bestLength, index - runStart >= 2 {
                    bestStart = runStart
                    bestLength = index - runStart
                }
                runStart = -1
            }
        }
        let hex = groups.map { String($0, radix: 16) }
        guard bestStart >= 0 else { return hex.joined(separator: ":") }
        let head = hex[0..<bestStart].joined(separator: ":")
        let tail = hex[(bestStart + bestLength)...].joined(separator: ":")
        return head + "::" + tail
    }
}
