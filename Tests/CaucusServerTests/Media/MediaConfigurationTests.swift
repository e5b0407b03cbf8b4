import Foundation
import Testing
@testable import CaucusServer

/// A media setting out of range stops the server at its start with an error that names it,
/// never later on the media loop (a tick interval of zero once stopped the process at its
/// first peer; one of more than 292 years, at its first sum).
@Suite(.serialized) struct MediaConfigurationTests {
    static let refused: [(String, @Sendable (inout ServerConfiguration) -> Void)] = [
        ("media tick interval", { $0.mediaTickInterval = .zero }),
        ("media tick interval", { $0.mediaTickInterval = .milliseconds(-50) }),
        ("media tick interval", { $0.mediaTickInterval = .nanoseconds(500) }),
        ("media tick interval", { $0.mediaTickInterval = .seconds(Int64.max) }),
        ("--media-loops", { $0.mediaLoops = 0 }),
        ("media routing slice", { $0.mediaRoutingSlice = 0 }),
    ]

    @Test(arguments: refused.indices)
    func aMediaSettingOutOfRangeStopsTheStartSayingWhich(case index: Int) async throws {
        let (named, configure) = Self.refused[index]
        do {
            let server = try await TestServer.start(configure: configure)
            await server.stop()
            Issue.record("the server started with its \(named) out of range")
        } catch let error as MediaConfigurationError {
            #expect(error.description.contains(named), "\(error)")
        }
    }

    @Test func theEdgesOfTheTickIntervalAreTaken() async throws {
        for interval: Duration in [.milliseconds(1), .seconds(60)] {
            let server = try await TestServer.start { $0.mediaTickInterval = interval }
            await server.stop()
        }
    }
}
