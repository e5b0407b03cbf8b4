import ArgumentParser
import CaucusServer
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `serve`'s options for real networks: TLS, the HTTPS redirect and the public URL.
extension Serve {
    func applyNetworkOptions(to configuration: inout ServerConfiguration, environment: [String: String]) throws {
        let certificate = tlsCert ?? environment["CAUCUS_TLS_CERT"]
        let key = tlsKey ?? environment["CAUCUS_TLS_KEY"]
        switch (certificate, key) {
        case (let certificate?, let key?): configuration.tls = TLSFiles(certificatePath: certificate, keyPath: key)
        case (nil, nil): break
        case (nil, _?): throw ValidationError("--tls-key needs --tls-cert (the certificate it is the key of).")
        case (_?, nil): throw ValidationError("--tls-cert needs --tls-key (the certificate's private key).")
        }
        if let seconds = try tlsCheckSeconds ?? environment["CAUCUS_TLS_CHECK_SECONDS"].map({ try Self.whole($0, "CAUCUS_TLS_CHECK_SECONDS") }) {
            guard (1...3600).contains(seconds) else { throw ValidationError("The certificate files are checked every 1 to 3600 seconds.") }
            configuration.tlsCheckInterval = .seconds(seconds)
        }
        if let port = try httpRedirectPort ?? environment["CAUCUS_HTTP_REDIRECT_PORT"].map({ try Self.whole($0, "CAUCUS_HTTP_REDIRECT_PORT") }) {
            guard (0...65535).contains(port) else { throw ValidationError("The HTTP redirect port is 0 to 65535.") }
            guard configuration.tls != nil else { throw ValidationError("--http-redirect-port redirects to HTTPS: give --tls-cert and --tls-key too.") }
            configuration.httpRedirectPort = port
        }
        if let text = publicURL ?? environment["CAUCUS_PUBLIC_URL"] {
            let url: PublicURL
            do { url = try PublicURL(text) } catch { throw ValidationError("\(error)") }
            configuration.publicURL = url
            if mediaAddress == nil && environment["CAUCUS_MEDIA_ADDRESS"] == nil {
                configuration.mediaAddress = try Self.mediaAddress(for: url)
            }
        }
    }

    /// Several nodes: the node's URL is the public URL's origin with its port, unless given.
    func derivedNodeURL(_ configuration: ServerConfiguration) -> String? {
        guard configuration.storeURL != nil, let url = configuration.publicURL else { return nil }
        return url.origin.hasSuffix(":\(url.effectivePort)") ? url.origin : "\(url.origin):\(url.effectivePort)"
    }

    /// The address media is announced at: the public host's own if it is an IP literal, else
    /// the IPv4 address its name resolves to now.
    static func mediaAddress(for url: PublicURL) throws -> String {
        if isIPLiteral(url.host) { return url.host }
        var hints = addrinfo()
        hints.ai_family = AF_INET
        hints.ai_socktype = Int32(SOCK_DGRAM.rawValue)
        var result: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(url.host, nil, &hints, &result)
        defer { if let result { freeaddrinfo(result) } }
        guard status == 0, let first = result, let address = first.pointee.ai_addr, first.pointee.ai_family == AF_INET else {
            let reason = status == 0 ? "no IPv4 address" : String(cString: gai_strerror(status))
            throw ValidationError(
                "The public URL's host \(url.host) did not resolve to an IPv4 address (\(reason)), which media is announced at: pass --media-address with the server's public IP.")
        }
        var ipv4 = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
        var text = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
        guard inet_ntop(AF_INET, &ipv4, &text, socklen_t(text.count)) != nil else {
            throw ValidationError("The public URL's host \(url.host) resolved to an unreadable address: pass --media-address.")
        }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    static func isIPLiteral(_ host: String) -> Bool {
        var v4 = in_addr()
        var v6 = in6_addr()
        return inet_pton(AF_INET, host, &v4) == 1 || inet_pton(AF_INET6, host, &v6) == 1
    }

    static func whole(_ text: String, _ name: String) throws -> Int {
        guard let value = Int(text) else { throw ValidationError("\(name) must be a whole number, not \"\(text)\".") }
        return value
    }

    static func announceRedirect(server: SessionServer, port: Int) {
        let line = "HTTP redirect: http://\(server.configuration.host):\(port) answers 308 to HTTPS\n"
        FileHandle.standardOutput.write(Data(line.utf8))
    }
}
