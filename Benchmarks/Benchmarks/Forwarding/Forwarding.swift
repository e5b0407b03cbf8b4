import Benchmark
import BenchmarkSupport
import CaucusMedia
import CaucusSFU

/// The forwarding engine's packet path in steady state: one publisher's audio in a room, every
/// packet forwarded to each subscriber's slot and the outputs drained, as the server's media
/// loop does (without SRTP and the socket, which the shell adds). Counts what one packet in
/// costs: allocations (goal 0) and time, for one subscriber and for a room of twenty.
let benchmarks: @Sendable () -> Void = {
    AllocationCounting.configure()
    for kind in [StreamKind.audio, .video] {
        for subscribers in [1, 19] {
            Benchmark("\(kind) packet in, \(subscribers) cop\(subscribers == 1 ? "y" : "ies") out") { benchmark in
            let room = try ForwardingRoom(kind: kind, subscribers: subscribers)
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations { room.forwardNext() }
            benchmark.stopMeasurement()
            guard room.copies == room.packets * subscribers else {
                fatalError("every packet must reach every subscriber: \(room.copies) copies of \(room.packets) packets")
            }
            }
        }
    }
    // Five packets in (audio: 100 ms of one publisher), then the first subscriber's
    // transport-cc report of its five copies, read and fed to its downlink estimate.
    for subscribers in [1, 19] {
        Benchmark("audio 5 packets in and a transport-cc report, \(subscribers) subscriber\(subscribers == 1 ? "" : "s")") { benchmark in
            let room = try ForwardingRoom(kind: .audio, subscribers: subscribers, transportCC: true)
            let count = benchmark.scaledIterations.count
            let reports = try room.transportCCReports(count: count, packetsPerReport: 5)
            let first = room.lastTransportSequence!
            benchmark.startMeasurement()
            for report in reports {
                for _ in 0..<5 { room.forwardNext() }
                room.report(report)
            }
            benchmark.stopMeasurement()
            // The reports named the numbers the copies got: one after another, as assumed.
            guard room.lastTransportSequence == first &+ UInt16(truncatingIfNeeded: count * 5) else {
                fatalError("the first subscriber's copies were not numbered one after another")
            }
            guard room.copies == room.packets * subscribers else {
                fatalError("every packet must reach every subscriber: \(room.copies) copies of \(room.packets) packets")
            }
        }
    }
}

/// An engine with a publisher (user 0, of `kind`: audio, or VP8 video whose every packet opens a
/// keyframe, so every slot takes it at once) and `subscribers` users each with three receive
/// slots of that kind, all in one location, media flowing. Its packets are made before the
/// measurement, so what is counted is the engine's.
final class ForwardingRoom {
    static let publisherSSRC: UInt32 = 0x5EED_0000
    let engine = ForwardingEngine()
    private let ring: [[UInt8]]
    private var next = 0
    private(set) var now = Duration.zero
    private(set) var packets = 0
    private(set) var copies = 0
    /// Stands for each user's signalling connection (only its identity matters to the engine).
    private let channels: [AnyObject]

    /// With `transportCC`, every offer also negotiates transport-wide congestion control and
    /// the publisher's packets carry its number (as Chromium's do), so the engine numbers each
    /// copy for its subscriber and estimates its downlink from its reports
    /// (``transportCCReports(count:packetsPerReport:)``).
    init(kind: StreamKind, subscribers: Int, transportCC: Bool = false) throws {
        let sdpKind: SDPOffer.Section.Kind = kind == .audio ? .audio : .video
        let certificate = try DTLSCertificate.generate(commonName: "bench")
        var nextSSRC: UInt32 = 1
        channels = (0...subscribers).map { _ in Channel() }
        var handover = RoutingHandover()
        let stream = PublishedStream(publisher: 0, kind: kind)
        for user in 0...subscribers {
            let sections: [SDPOffer.Section] =
                user == 0
                ? [.init(kind: sdpKind, direction: .sendonly, sendingSSRC: Self.publisherSSRC)]
                : Array(repeating: .receiving(sdpKind), count: 3)
            let offer = SDPOffer(sections: sections, credentials: .random(), fingerprint: certificate.fingerprint)
            // The plan `caucus serve` makes: the offer's slots with what its answer chose.
            let text = transportCC ? Self.negotiatingTransportCC(offer.text) : offer.text
            let description = try SessionDescription(parsing: text)
            var plan = MediaSlotPlan(offer: description) {
                defer { nextSSRC += 1 }
                return nextSSRC
            }
            var options = SDPAnswerOptions(
                iceUfrag: "bnch", icePwd: "0123456789abcdefghijkl",
                fingerprint: SDPFingerprint(algorithm: "sha-256", digest: certificate.fingerprint.bytes),
                candidate: TransportAddress(ip: IPAddress("127.0.0.1")!, port: 40_000), sessionID: 1)
            options.sendingSSRCs = plan.sendingSSRCs
            plan.accept(try SDPAnswer(answering: description, options: options).media)
            engine.addPeer(user, plan: plan, now: .zero)
            engine.peerConnected(user, now: .zero)
            handover.users[user] = .init(
                eligible: user == 0 ? [] : [stream], location: 0, channel: SignallingChannelID(channels[user]))
        }
        engine.handle(handover, now: .zero)
        engine.pollOutput { _ in }
        // A packet for every sequence number (6 MB of audio, 68 of video): the ring wraps where
        // the numbers do, so the stream never goes back. The engine keeps the last video
        // packets for repairs (references to these, no copies).
        ring = (0..<65_536).map { index in
            let sequence = UInt16(truncatingIfNeeded: index)
            let timestamp = UInt32(index) &* 960
            let payloadType = kind == .audio ? SDPOffer.opusPayloadType : SDPOffer.vp8PayloadType
            var packet: [UInt8] = [transportCC ? 0x90 : 0x80, payloadType, UInt8(sequence >> 8), UInt8(sequence & 0xFF)]
            packet += withUnsafeBytes(of: timestamp.bigEndian, Array.init)
            packet += withUnsafeBytes(of: Self.publisherSSRC.bigEndian, Array.init)
            // The publisher's transport-wide number (RFC 8285 one-byte form, ID 5), as
            // Chromium sends on every packet: each copy carries the subscriber's own in it.
            if transportCC { packet += [0xBE, 0xDE, 0x00, 0x01, 0x51, UInt8(sequence >> 8), UInt8(sequence & 0xFF), 0x00] }
            // VP8 (RFC 7741): S set, partition 0, then a keyframe's first byte (P clear).
            let payload: [UInt8] = kind == .audio ? [] : [0x10, 0x00]
            return packet + payload + [UInt8](repeating: 0xA4, count: kind == .audio ? 80 : 1_000)
        }
        // Warm: the first packets set the slots' numbering up.
        for _ in 0..<2_048 { forwardNext() }
        (packets, copies) = (0, 0)
    }

    /// The transport-wide number the first subscriber's last copy got, where it has them.
    private(set) var lastTransportSequence: UInt16?

    @inline(__always)
    func forwardNext() {
        engine.receive(rtp: ring[next], from: 0, at: now)
        next = (next + 1) & 0xFFFF
        now += .milliseconds(20)
        packets += 1
        engine.pollOutput { output in
            guard case .copy(let copy, _) = output else { return }
            copies += 1
            if copy.subscriber == 1, let number = copy.transportSequence { lastTransportSequence = number }
        }
    }

    /// An offer's text with the transport-cc header extension in each of its media sections.
    static func negotiatingTransportCC(_ text: String) -> String {
        text.split(separator: "\r\n", omittingEmptySubsequences: false).flatMap { line in
            line.hasPrefix("a=mid:") ? [String(line), "a=extmap:5 \(RTPExtensionURI.transportWideCC)"] : [String(line)]
        }.joined(separator: "\r\n")
    }

    private final class Channel {}
}
