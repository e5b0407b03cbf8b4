/// Why text is not a session description this server can read.
public enum SDPParseError: Error, Hashable, Sendable {
    /// The first line is not `v=0`.
    case missingVersion
    /// A line is not `<letter>=<value>` (1-based line number).
    case malformedLine(line: Int)
    /// An `m=` line lacks its kind, port, protocol or formats.
    case malformedMediaLine(line: Int)
    /// An attribute this server reads has a value it cannot parse.
    case malformedAttribute(name: String, line: Int)
}

/// Why an offer, though readable, cannot be answered.
public enum SDPNegotiationError: Error, Hashable, Sendable {
    /// WebRTC needs BUNDLE; the server has one port and one transport per peer.
    case bundleRequired
    /// A media section has no rtcp-mux: RTCP must share the RTP port.
    case rtcpMuxRequired(mid: String)
    case missingMid
    case missingICECredentials(mid: String)
    case missingFingerprint(mid: String)
    /// No section offers a codec the server forwards.
    case noAcceptableMedia
}
