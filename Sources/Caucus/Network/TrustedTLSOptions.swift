#if canImport(Network)
import Foundation
import Network
import Security

/// Network.framework's TLS options for `wss`: the system's trust, plus an app's own roots (a
/// private CA, `CaucusSession.Configuration.trustRoots`) as anchors beside it. With no roots,
/// the default options: the system decides alone.
enum TrustedTLSOptions {
    static let verifyQueue = DispatchQueue(label: "caucus.tls-verify")

    /// `roots`: DER certificates.
    static func make(trusting roots: [[UInt8]]) -> NWProtocolTLS.Options {
        let options = NWProtocolTLS.Options()
        sec_protocol_options_set_min_tls_protocol_version(options.securityProtocolOptions, .TLSv12)
        let anchors = roots.compactMap { SecCertificateCreateWithData(nil, Data($0) as CFData) }
        guard !anchors.isEmpty else { return options }
        sec_protocol_options_set_verify_block(
            options.securityProtocolOptions,
            { _, trust, complete in
                let evaluated = sec_trust_copy_ref(trust).takeRetainedValue()
                // The app's roots, and the system's still (not only these).
                SecTrustSetAnchorCertificates(evaluated, anchors as CFArray)
                SecTrustSetAnchorCertificatesOnly(evaluated, false)
                SecTrustEvaluateAsyncWithError(evaluated, verifyQueue) { _, trusted, _ in complete(trusted) }
            }, verifyQueue)
        return options
    }
}
#endif
