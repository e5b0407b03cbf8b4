import Foundation
internal import NIOSSL

extension CaucusSession.Configuration {
    /// A certificate authority trusted for `wss://` servers beside the system's own: a
    /// school's or a lab's private CA, whose certificate is on no device by default. Give it in
    /// `Configuration.trustRoots`; the system's roots stay trusted.
    ///
    /// ```swift
    /// var configuration = CaucusSession.Configuration()
    /// configuration.trustRoots = try CaucusSession.Configuration.TrustRoot.certificates(pem: schoolCAPEM)
    /// ```
    public struct TrustRoot: Sendable, Hashable {
        /// The certificate, DER-encoded (what a `.cer` or `.der` file holds).
        public let derBytes: [UInt8]

        /// A DER-encoded certificate; throws when the bytes are not one.
        public init(derBytes: [UInt8]) throws(Unreadable) {
            do {
                _ = try NIOSSLCertificate(bytes: derBytes, format: .der)
            } catch {
                throw Unreadable(reason: "these \(derBytes.count) bytes are not a DER-encoded X.509 certificate")
            }
            self.derBytes = derBytes
        }

        /// Every certificate of a PEM text (`-----BEGIN CERTIFICATE-----` blocks, as a CA's
        /// `.pem` or `.crt` file holds them); throws when there is none or one is unreadable.
        public static func certificates(pem: String) throws(Unreadable) -> [TrustRoot] {
            let begin = "-----BEGIN CERTIFICATE-----", end = "-----END CERTIFICATE-----"
            var roots: [TrustRoot] = []
            var rest = Substring(pem)
            while let start = rest.range(of: begin) {
                guard let stop = rest.range(of: end, range: start.upperBound..<rest.endIndex) else {
                    throw Unreadable(reason: "certificate \(roots.count + 1) has no \(end) line")
                }
                let base64 = rest[start.upperBound..<stop.lowerBound].filter { !$0.isWhitespace }
                guard let der = Data(base64Encoded: String(base64)) else {
                    throw Unreadable(reason: "certificate \(roots.count + 1) is not base64 between its PEM lines")
                }
                roots.append(try TrustRoot(derBytes: Array(der)))
                rest = rest[stop.upperBound...]
            }
            guard !roots.isEmpty else { throw Unreadable(reason: "no \(begin) block: not a PEM certificate") }
            return roots
        }

        /// Why bytes or text given as a trust root are not a certificate.
        public struct Unreadable: Error, Sendable, Hashable, CustomStringConvertible {
            public let reason: String
            public var description: String { "Not a trust root: \(reason)." }
        }
    }
}
