import Foundation
internal import NIOSSL

#if canImport(Network)
import Network
#endif

/// What a failed `wss://` opening tells an app: a TLS failure in plain words
/// (`SessionError.tlsFailed`), apart from a server that could not be reached.
enum TLSFailure {
    /// The error an opening that failed with `error` reports.
    static func sessionError(for error: any Error, url: String) -> SessionError {
        guard let reason = reason(for: error, host: URL(string: url)?.host ?? url) else { return .connectionFailed(ConnectionFailure.words(for: error, url: url)) }
        return .tlsFailed(reason)
    }

    /// Refused before connecting: a `wss://` URL naming an IP address. Linux's TLS (through
    /// WSClient) checks a server by the name it is given, and may not give an address as one;
    /// a certificate's IP entry is checked on Apple platforms only.
    static func refusal(of url: String) -> SessionError? {
        #if canImport(Network)
        return nil
        #else
        guard let parsed = URL(string: url), parsed.scheme == "wss", let host = parsed.host, isIPAddress(host) else { return nil }
        return .tlsFailed(
            "wss:// to an IP address (\(host)) is not supported here: use the host name the server's certificate names (a test certificate may name localhost)")
        #endif
    }

    private static func reason(for error: any Error, host: String) -> String? {
        if let extra = error as? NIOSSLExtraError {
            if extra == .failedToValidateHostname || extra == .serverHostnameImpossibleToMatch {
                return "the server's certificate does not name \(host)"
            }
            return "the TLS handshake failed (\(extra))"
        }
        if let ssl = error as? NIOSSLError {
            if case .handshakeFailed(let cause) = ssl {
                if "\(cause)".contains("CERTIFICATE_VERIFY_FAILED") {
                    return "the server's certificate is not trusted: no authority this device trusts signed it, or it has expired "
                        + "(a private CA goes in CaucusSession.Configuration.trustRoots)"
                }
                return "the TLS handshake failed (\(Self.words(of: cause)))"
            }
            return "TLS failed (\(ssl))"
        }
        if error is BoringSSLError { return "the TLS handshake failed (\(Self.words(of: error)))" }
        #if canImport(Network)
        if let network = error as? NWError, case .tls(let status) = network {
            return "the server's certificate is not trusted, or the TLS handshake failed (OSStatus \(status)); "
                + "a private CA goes in CaucusSession.Configuration.trustRoots"
        }
        #endif
        return nil
    }

    /// BoringSSL's reason names (`WRONG_VERSION_NUMBER`), without its error numbers and file paths.
    private static func words(of error: any Error) -> String {
        let text = "\(error)"
        let names = text.split(whereSeparator: { !($0.isUppercase || $0 == "_" || $0.isNumber) }).filter { $0.contains("_") && $0.count > 3 }
        return names.isEmpty ? text : names.joined(separator: ", ")
    }

    private static func isIPAddress(_ host: String) -> Bool {
        host.contains(":") || (host.split(separator: ".").count == 4 && host.allSatisfy { $0.isNumber || $0 == "." })
    }
}
