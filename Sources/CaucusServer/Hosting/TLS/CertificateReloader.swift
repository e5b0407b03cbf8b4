import Foundation
import ServiceLifecycle
import UnixSignals

/// Reloads the served certificate on SIGHUP and whenever its files change (checked every
/// `checkInterval`), and warns once a day while it is about to expire.
struct CertificateReloader: Service {
    let served: ServedCertificate
    /// Trapped before the server listens, so that a SIGHUP never ends the process.
    let hangups: UnixSignalsSequence
    let checkInterval: Duration

    func run() async throws {
        await cancelWhenGracefulShutdown {
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    for await _ in hangups { served.reload(.signal, now: Date()) }
                }
                group.addTask {
                    while (try? await Task.sleep(for: checkInterval)) != nil {
                        served.reload(.check, now: Date())
                        served.warnIfExpiring(now: Date())
                    }
                }
            }
        }
    }
}
