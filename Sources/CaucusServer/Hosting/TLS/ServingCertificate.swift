import Foundation
import NIOSSL

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where `caucus serve` reads its certificate and key (`--tls-cert`, `--tls-key`): PEM files,
/// the certificate file holding the server's certificate first, then the chain to the root
/// (as certbot's `fullchain.pem` does).
public struct TLSFiles: Sendable, Hashable {
    public var certificatePath: String
    public var keyPath: String

    public init(certificatePath: String, keyPath: String) {
        self.certificatePath = certificatePath
        self.keyPath = keyPath
    }
}

/// Why a certificate and key cannot be served: the file, and what is wrong with it.
public struct TLSCertificateError: Error, CustomStringConvertible, Hashable {
    public let file: String
    public let reason: String

    public var description: String { "TLS: \(file): \(reason)" }
}

/// A certificate chain and key read from their files and checked (PEM, matching, in date),
/// with the TLS context new connections are served from.
struct ServingCertificate: Sendable {
    let context: NIOSSLContext
    /// The server's own certificate's validity.
    let notValidBefore: Date
    let notValidAfter: Date
    /// The server's own certificate's serial number, in hex: which one a log line speaks of.
    let serial: String
    /// The bytes read, to know when the files change.
    let certificateBytes: [UInt8]
    let keyBytes: [UInt8]

    /// PEM files beyond this size are not certificates or keys.
    static let largestFile = 1 << 20

    /// Reads and checks both files.
    static func load(_ files: TLSFiles, now: Date) throws(TLSCertificateError) -> ServingCertificate {
        let certificate = try contents(of: files.certificatePath)
        let key = try contents(of: files.keyPath)
        return try make(files, certificate: certificate, key: key, now: now)
    }

    /// A file's bytes, or why it cannot be read.
    static func contents(of path: String) throws(TLSCertificateError) -> [UInt8] {
        do {
            return try SmallFile.contents(of: path, largest: largestFile)
        } catch .tooLarge(let size) {
            throw TLSCertificateError(file: path, reason: (size.map { "is \($0) bytes: " } ?? "") + "too large for a PEM certificate or key")
        } catch {
            throw TLSCertificateError(file: path, reason: error.reason)
        }
    }

    /// Checks what was read and makes the TLS context: TLS 1.2 at least, HTTP/1.1.
    static func make(_ files: TLSFiles, certificate: [UInt8], key: [UInt8], now: Date) throws(TLSCertificateError) -> ServingCertificate {
        let chain = try certificates(in: certificate, path: files.certificatePath)
        let privateKey = try privateKey(in: key, path: files.keyPath)
        let leaf = chain[0]
        let notValidBefore = Date(timeIntervalSince1970: TimeInterval(leaf.notValidBefore))
        let notValidAfter = Date(timeIntervalSince1970: TimeInterval(leaf.notValidAfter))
        guard notValidAfter > now else {
            throw TLSCertificateError(file: files.certificatePath, reason: "the certificate expired on \(Self.day(notValidAfter)): renew it")
        }
        guard notValidBefore <= now else {
            throw TLSCertificateError(
                file: files.certificatePath, reason: "the certificate is not valid before \(Self.day(notValidBefore)) (is this machine's clock right?)")
        }
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(privateKey))
        configuration.minimumTLSVersion = .tlsv12
        configuration.applicationProtocols = ["http/1.1"]
        let context: NIOSSLContext
        do {
            context = try NIOSSLContext(configuration: configuration)
        } catch {
            // Each file was read on its own above: what fails now is the pair.
            throw TLSCertificateError(
                file: files.keyPath, reason: "the private key does not match the certificate in \(files.certificatePath) (\(error))")
        }
        return ServingCertificate(
            context: context, notValidBefore: notValidBefore, notValidAfter: notValidAfter,
            serial: leaf.serialNumber.map { String(format: "%02x", $0) }.joined(), certificateBytes: certificate, keyBytes: key)
    }

    private static func certificates(in bytes: [UInt8], path: String) throws(TLSCertificateError) -> [NIOSSLCertificate] {
        guard contains(bytes, "-----BEGIN CERTIFICATE-----") else {
            throw TLSCertificateError(file: path, reason: "not a PEM certificate (no -----BEGIN CERTIFICATE----- line)")
        }
        do {
            let chain = try NIOSSLCertificate.fromPEMBytes(bytes)
            guard !chain.isEmpty else { throw NIOSSLError.failedToLoadCertificate }
            return chain
        } catch {
            throw TLSCertificateError(file: path, reason: "not a readable PEM certificate (\(error))")
        }
    }

    private static func privateKey(in bytes: [UInt8], path: String) throws(TLSCertificateError) -> NIOSSLPrivateKey {
        if contains(bytes, "-----BEGIN ENCRYPTED PRIVATE KEY-----") {
            throw TLSCertificateError(file: path, reason: "the private key is encrypted: give caucus the key without a passphrase")
        }
        guard contains(bytes, "PRIVATE KEY-----") else {
            throw TLSCertificateError(file: path, reason: "not a PEM private key (no -----BEGIN PRIVATE KEY----- line)")
        }
        do {
            return try NIOSSLPrivateKey(bytes: bytes, format: .pem)
        } catch {
            throw TLSCertificateError(file: path, reason: "not a readable PEM private key (\(error))")
        }
    }

    private static func contains(_ bytes: [UInt8], _ text: String) -> Bool {
        String(decoding: bytes, as: UTF8.self).contains(text)
    }

    /// A date as operators read it in logs: `2026-05-01 12:00 UTC`.
    static func day(_ date: Date) -> String {
        let format = DateFormatter()
        format.locale = Locale(identifier: "en_US_POSIX")
        format.timeZone = TimeZone(identifier: "UTC")
        format.dateFormat = "yyyy-MM-dd HH:mm 'UTC'"
        return format.string(from: date)
    }
}
