import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOSSL

/// The certificate new TLS connections are served with, replaced by a reload. Each accepted
/// socket reads it once, at accept, and keeps that context for its whole life: a reload never
/// touches a connection already open.
final class ServedCertificate: Sendable {
    /// Why a reload was tried.
    enum Trigger: Sendable, CustomStringConvertible {
        /// SIGHUP: always tried, always reported.
        case signal
        /// A check of the files: tried only when their contents changed, reported only when
        /// something happened.
        case check

        var description: String { self == .signal ? "SIGHUP" : "file change" }
    }

    /// What a reload did.
    enum Outcome: Sendable, Equatable {
        case reloaded, unchanged, refused(TLSCertificateError)
    }

    /// A certificate expiring within this is warned about, at start and once a day.
    static let expiryWarning: TimeInterval = 14 * 24 * 3600
    static let warningInterval: TimeInterval = 24 * 3600

    private struct State {
        var current: ServingCertificate
        /// The files' last contents a reload refused, or the last read error: not reported again.
        var refused: (certificate: [UInt8], key: [UInt8])?
        var unreadable: TLSCertificateError?
        var lastExpiryWarning: Date?
    }

    let files: TLSFiles
    private let state: NIOLockedValueBox<State>
    private let logger: Logger

    init(_ first: ServingCertificate, files: TLSFiles, logger: Logger) {
        self.files = files
        self.state = NIOLockedValueBox(State(current: first))
        self.logger = logger
    }

    /// The TLS context a connection accepted now is served with.
    var context: NIOSSLContext { state.withLockedValue { $0.current.context } }

    var current: ServingCertificate { state.withLockedValue { $0.current } }

    /// Reads the files again; serves what they hold from the next connection on if it is
    /// usable, keeps the current certificate (and says why) if not.
    @discardableResult
    func reload(_ trigger: Trigger, now: Date) -> Outcome {
        let certificate: [UInt8], key: [UInt8]
        do {
            certificate = try ServingCertificate.contents(of: files.certificatePath)
            key = try ServingCertificate.contents(of: files.keyPath)
        } catch {
            let repeated = state.withLockedValue { state in
                defer { state.unreadable = error }
                return state.unreadable == error
            }
            if trigger == .signal || !repeated { refused(error, trigger) }
            return .refused(error)
        }
        let seen = state.withLockedValue { state -> (current: Bool, refused: Bool) in
            state.unreadable = nil
            let current = state.current.certificateBytes == certificate && state.current.keyBytes == key
            let refused = state.refused.map { $0.certificate == certificate && $0.key == key } ?? false
            return (current, refused)
        }
        if seen.current {
            if trigger == .signal { logger.notice("TLS certificate unchanged on SIGHUP: still serving serial \(current.serial)") }
            return .unchanged
        }
        if seen.refused && trigger == .check { return .unchanged }
        do {
            let next = try ServingCertificate.make(files, certificate: certificate, key: key, now: now)
            state.withLockedValue { state in
                state = State(current: next)
            }
            logger.notice(
                "TLS certificate reloaded (\(trigger)): serial \(next.serial), valid until \(ServingCertificate.day(next.notValidAfter)); open connections keep the one they began with")
            warnIfExpiring(now: now)
            return .reloaded
        } catch {
            state.withLockedValue { $0.refused = (certificate, key) }
            refused(error, trigger)
            return .refused(error)
        }
    }

    /// Warns when the certificate served expires within 14 days: at most once a day.
    func warnIfExpiring(now: Date) {
        let due = state.withLockedValue { state -> ServingCertificate? in
            guard state.current.notValidAfter.timeIntervalSince(now) < Self.expiryWarning else { return nil }
            if let last = state.lastExpiryWarning, now.timeIntervalSince(last) < Self.warningInterval { return nil }
            state.lastExpiryWarning = now
            return state.current
        }
        guard let due else { return }
        guard due.notValidAfter > now else {
            return logger.warning(
                "TLS certificate \(files.certificatePath) (serial \(due.serial)) has expired, on \(ServingCertificate.day(due.notValidAfter)): clients refuse it; renew it")
        }
        let days = Int(due.notValidAfter.timeIntervalSince(now) / (24 * 3600))
        logger.warning(
            "TLS certificate \(files.certificatePath) (serial \(due.serial)) expires on \(ServingCertificate.day(due.notValidAfter)), in \(days) day(s): renew it; caucus serves the new one as soon as the files change (or on SIGHUP)")
    }

    private func refused(_ error: TLSCertificateError, _ trigger: Trigger) {
        logger.error("TLS certificate not reloaded (\(trigger)): \(error.description); still serving serial \(current.serial)")
    }
}
