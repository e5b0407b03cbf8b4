import Foundation

/// The real offers under `Fixtures/`, read from the source tree.
enum OfferFixtures {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")

    static func text(_ name: String) throws -> String {
        try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
    }

    static var aiortcOffer: String { get throws { try text("aiortc-offer.sdp") } }
    static var chromiumOffer: String { get throws { try text("chromium-offer.sdp") } }
    static var chromiumSimulcastOffer: String { get throws { try text("chromium-simulcast-offer.sdp") } }
}
