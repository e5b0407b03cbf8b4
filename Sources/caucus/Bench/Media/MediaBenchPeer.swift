import CaucusMedia
import Foundation
import CaucusSFU
import NIOCore
import NIOPosix

/// One synthetic user's media for `caucus bench media`: its own UDP socket and a
/// ``MediaClientPeer`` (the client-role stack) connected to the server's media port; or, for
/// the floor, plain datagrams to the bare relay. It publishes synthetic RTP (nothing is
/// encoded): Opus-sized audio packets, and one-packet VP8 frames whose descriptor and frame
/// tag say whether they are keyframes; it answers the server's keyframe requests (PLI, FIR)
/// with a keyframe at its next frame, as an encoder would. Every payload ends with the user's
/// index, so a receiver can tell whose audio or video reached it and in which slot (the slots'
/// SSRCs come from the server's answer).
///
/// Between measurements it decrypts everything it receives (``inspecting``); during a
/// forwarding measurement it only counts the SRTP packets it receives, so that a thousand
/// users fit on one event loop beside the server.
///
/// Confined to its channel's event loop; the bench reaches it through `MediaBenchPeers`.
final class MediaBenchPeer: ChannelInboundHandler {
    typealias InboundIn = AddressedEnvelope<ByteBuffer>
    typealias OutboundOut = AddressedEnvelope<ByteBuffer>

    enum Target {
        case idle
        /// SRTP to the server through the peer (at its address, kept as NIO's).
        case server(MediaClientPeer, SocketAddress)
        /// Plain datagrams to the relay.
        case relay(SocketAddress)
    }

    /// What one user publishes and how big its packets are.
    struct Publication: Sendable {
        var audioSSRC: UInt32?
        var videoSSRC: UInt32?
        var audioBytes: Int
        /// Payload bytes of each video packet, and packets per frame.
        var videoBytes: Int
        var videoPackets: Int
    }

    let index: Int
    let publication: Publication
    private var target = Target.idle
    private var context: ChannelHandlerContext?
    private var connected: EventLoopPromise<Void>?
    private var deadline: Scheduled<Void>?
    private var scheduledFor: Duration?
    private var audioStream = StreamCounters(clockStep: 960)
    private var videoStream = StreamCounters(clockStep: 3000)
    private var keyframeDue = true
    private var audioPackets: UInt32 = 0
    private var videoFrames: UInt32 = 0
    /// The kind of each of this user's receive slots, by the SSRC the server sends it with.
    private var slotKinds: [UInt32: MediaBenchShape.Kinds] = [:]

    /// Decrypt and look into what arrives (true), or only count it (false).
    var inspecting = true
    /// The RFC 6464 level (−dBov: 0 loudest, 127 silence) each audio packet carries, under
    /// ``audioLevelID``; nil: none.
    var audioLevel: UInt8?
    /// The audio level extension's ID in the bench's offers.
    static let audioLevelID: UInt8 = 1
    /// Packets sent and received since the last reset; whose audio and video arrived.
    private(set) var sent = 0
    private(set) var received = 0
    private(set) var heardAudio: Set<Int> = []
    private(set) var sawVideo: Set<Int> = []
    /// Keyframe requests (PLI or FIR) for this user's video, since it connected.
    private(set) var keyframeRequests = 0
    /// By slot (its SSRC), whose stream came last.
    private var last: [UInt32: Int] = [:]
    private var move = MediaBenchMove()

    init(index: Int, publication: Publication) {
        self.index = index
        self.publication = publication
    }

    func handlerAdded(context: ChannelHandlerContext) { self.context = context }

    // MARK: - Driven by the bench, on the loop

    /// Connects to the server with the client-role stack; the promise completes once SRTP is keyed.
    func connect(
        credentials: ICECredentials, certificate: DTLSCertificate, answer: SessionDescription, promise: EventLoopPromise<Void>
    ) throws {
        let server = try MediaServerEndpoint(answer: answer)
        for section in answer.media {
            let kind: MediaBenchShape.Kinds = section.kind == "video" ? .video : .audio
            for ssrc in section.ssrcs.keys { slotKinds[ssrc] = kind }
        }
        let peer = try MediaClientPeer(localCredentials: credentials, certificate: certificate, server: server, tieBreaker: .random(in: 1...UInt64.max))
        target = .server(peer, try SocketAddress(ipAddress: peer.server.address.ip.description, port: Int(peer.server.address.port)))
        connected = promise
        send(peer.start(now: Self.now()).datagrams)
        scheduleDeadline()
    }

    func useRelay(_ relay: SocketAddress) {
        target = .relay(relay)
        // Three hellos: the relay learns this peer's address from them (loopback loses none
        // unless the relay's socket is full, and a lost one would only lower the floor's count).
        for _ in 0..<3 { write(helloDatagram(), to: relay) }
        context?.flush()
    }

    func resetCounts() {
        sent = 0
        received = 0
        heardAudio = []
        sawVideo = []
    }

    /// Just before the host starts the breakout: what marks this user's arrival in its new room.
    func expectRoom(audio: Set<Int>, video: Set<Int>, fillableVideoSlots: Int) {
        move = MediaBenchMove(
            audioRoommates: audio, videoRoommates: video, audioBefore: last.filter { slotKinds[$0.key] == .audio },
            videoBefore: last.filter { slotKinds[$0.key] == .video }, fillableVideoSlots: fillableVideoSlots)
    }

    var moveResult: MediaBenchMove.Result { move.result(last: last) }

    /// What the client-role stack dropped, and whether it closed: for a failure's message.
    var dropped: (counters: MediaPeerCounters, closed: String?) {
        guard case .server(let peer, _) = target else { return (MediaPeerCounters(), nil) }
        if case .closed(let reason) = peer.state { return (peer.counters, "\(reason)") }
        return (peer.counters, nil)
    }

    /// One packet of this user's audio, written but not flushed: `audioBytes` give or take a
    /// quarter, as Opus's variable bitrate makes them (were they all one size, the server could
    /// send a subscriber's copies in runs, UDP GSO, more often than real audio lets it).
    func sendAudio() {
        guard let ssrc = publication.audioSSRC else { return }
        audioPackets &+= 1
        let spread = publication.audioBytes / 4
        let mixed = (audioPackets &* 2_654_435_761) ^ UInt32(truncatingIfNeeded: index)
        let size = publication.audioBytes - spread + Int(mixed % UInt32(2 * spread + 1))
        var packet = audioStream.header(payloadType: SDPOffer.opusPayloadType, marker: false, ssrc: ssrc, size: 12 + size)
        if let audioLevel {
            // RFC 8285's one-byte header, one element: the level, and the voice bit when not
            // silent (RFC 6464).
            packet[0] |= 0x10
            let voice: UInt8 = audioLevel < 127 ? 0x80 : 0
            packet.replaceSubrange(12..<20, with: [0xBE, 0xDE, 0x00, 0x01, Self.audioLevelID << 4, voice | audioLevel, 0, 0])
        }
        stamp(&packet)
        send(packet)
        if audioPackets % 50 == 1 { sendReport(ssrc, timestamp: audioStream.timestamp) }
    }

    /// One frame of this user's video (`videoPackets` packets, the marker on the last),
    /// written but not flushed: a keyframe when one was asked for since the last.
    func sendVideoFrame() {
        guard let ssrc = publication.videoSSRC else { return }
        for part in 0..<publication.videoPackets {
            var packet = videoStream.header(
                payloadType: SDPOffer.vp8PayloadType, marker: part == publication.videoPackets - 1, ssrc: ssrc,
                size: 12 + publication.videoBytes, startsFrame: part == 0)
            // RFC 7741: the first packet's descriptor has S set and partition 0, then the VP8
            // frame tag (RFC 6386 §9.1): bit 0 clear for a keyframe, show_frame set; a
            // keyframe's start code follows. The frame's other packets continue it (S clear).
            if part == 0 {
                packet[12] = 0x10
                packet[13] = keyframeDue ? 0x10 : 0x11
                if keyframeDue {
                    // The start code, then the picture's size (320×240, little-endian), which a
                    // recording reads from each keyframe.
                    packet.replaceSubrange(16..<23, with: [0x9D, 0x01, 0x2A, 0x40, 0x01, 0xF0, 0x00])
                }
            }
            stamp(&packet)
            send(packet)
        }
        keyframeDue = false
        videoFrames &+= 1
        if videoFrames % 15 == 1 { sendReport(ssrc, timestamp: videoStream.timestamp) }
    }

    /// A sender report for one of this user's streams (RFC 3550 §6.4.1), about once a second
    /// as a browser's: its wall clock against the stream's RTP time. The server passes it on
    /// to the stream's receivers, and a recording places the stream's frames with it.
    private func sendReport(_ ssrc: UInt32, timestamp: UInt32) {
        guard case .server(let peer, let address) = target else { return }
        let unix = Date().timeIntervalSince1970 + 2_208_988_800
        let ntp = UInt64(unix) << 32 | UInt64((unix - unix.rounded(.down)) * 4_294_967_296)
        let report = RTCPSenderReport(ssrc: ssrc, ntpTimestamp: ntp, rtpTimestamp: timestamp, packetCount: 0, octetCount: 0)
        guard let datagram = peer.protect(rtcp: RTCPPacket.senderReport(report).encoded()) else { return }
        write(datagram.bytes, to: address)
    }

    func flush() { context?.flush() }

    // MARK: - Channel

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let envelope = unwrapInboundIn(data)
        switch target {
        case .idle: return
        case .server(let peer, let address):
            if !inspecting, Self.isRTP(envelope.data) {
                received += 1
                return
            }
            // Anything not from the server's address is a stranger: the peer drops it.
            let source = envelope.remoteAddress == address ? peer.server.address : TransportAddress(ip: .v4(0), port: 0)
            let output = peer.receive([UInt8](envelope.data.readableBytesView), from: source, now: Self.now())
            send(output.datagrams)
            for event in output.events {
                switch event {
                case .connected:
                    connected?.succeed()
                    connected = nil
                case .rtp(let packet): heard(packet)
                case .rtcp(let packet): feedback(packet)
                case .closed: continue
                }
            }
            scheduleDeadline()
        case .relay:
            received += 1
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {}

    // MARK: - Private

    /// SRTP (not SRTCP, STUN or DTLS): RFC 7983's first byte, and RFC 5761's payload types.
    private static func isRTP(_ bytes: ByteBuffer) -> Bool {
        guard let first = bytes.getInteger(at: bytes.readerIndex, as: UInt8.self),
            let second = bytes.getInteger(at: bytes.readerIndex + 1, as: UInt8.self)
        else { return false }
        return (128...191).contains(first) && !(192...223).contains(second)
    }

    private func heard(_ packet: [UInt8]) {
        guard packet.count >= 16 else { return }
        received += 1
        let ssrc = Self.read32(packet, at: 8)
        let publisher = Int(Self.read32(packet, at: packet.count - 4))
        switch slotKinds[ssrc] {
        case .audio?:
            heardAudio.insert(publisher)
            last[ssrc] = publisher
            move.heardAudio(from: publisher, slot: ssrc, at: .now())
        case .video?:
            sawVideo.insert(publisher)
            last[ssrc] = publisher
            if KeyframeDetector.startsKeyframe(packet, codec: .vp8) { move.sawKeyframe(from: publisher, slot: ssrc, at: .now()) }
        default:
            return
        }
    }

    private func feedback(_ datagram: [UInt8]) {
        guard let videoSSRC = publication.videoSSRC, let packets = try? RTCPPacket.decodeCompound(datagram) else { return }
        for packet in packets {
            switch packet {
            case .pictureLossIndication(_, let media) where media == videoSSRC:
                keyframeDue = true
                keyframeRequests += 1
            case .fullIntraRequest(let request) where request.entries.contains(where: { $0.ssrc == videoSSRC }):
                keyframeDue = true
                keyframeRequests += 1
            default:
                continue
            }
        }
    }

    /// The user's index in the payload's last four bytes.
    private func stamp(_ packet: inout [UInt8]) {
        for byte in 0..<4 { packet[packet.count - 4 + byte] = UInt8(truncatingIfNeeded: UInt32(index) >> (24 - 8 * byte)) }
    }

    private func send(_ packet: [UInt8]) {
        switch target {
        case .idle: return
        case .server(let peer, let address):
            guard let datagram = peer.protect(rtp: packet) else { return }
            write(datagram.bytes, to: address)
            sent += 1
        case .relay(let relay):
            // As long as the SRTP packet would be: the 16-byte tag of AES-GCM.
            write(packet + [UInt8](repeating: 0, count: 16), to: relay)
            sent += 1
        }
    }

    private func helloDatagram() -> [UInt8] {
        [0x48, 0x45, 0x4C, 0x4F] + (0..<4).map { UInt8(truncatingIfNeeded: UInt32(index) >> (24 - 8 * $0)) }
    }

    /// Runs the peer's next deadline on time; a no-op when it has not moved (most packets).
    private func scheduleDeadline() {
        guard case .server(let peer, _) = target, let context, peer.nextDeadline != scheduledFor else { return }
        deadline?.cancel()
        scheduledFor = peer.nextDeadline
        guard let next = scheduledFor else { return }
        let wait = max(.zero, next - Self.now())
        let bound = NIOLoopBound(self, eventLoop: context.eventLoop)
        deadline = context.eventLoop.scheduleTask(in: .nanoseconds(Int64(wait.components.seconds) * 1_000_000_000 + wait.components.attoseconds / 1_000_000_000)) {
            bound.value.handleDeadline()
        }
    }

    private func handleDeadline() {
        scheduledFor = nil
        guard case .server(let peer, _) = target else { return }
        send(peer.handleTimeout(now: Self.now()).datagrams)
        if case .closed(let reason) = peer.state {
            connected?.fail(BenchError("user \(index)'s media closed: \(reason)"))
            connected = nil
        }
        scheduleDeadline()
    }

    /// What the peer answers goes to the server (its only destination), flushed at once.
    private func send(_ datagrams: [AddressedDatagram]) {
        guard case .server(_, let address) = target, let context, !datagrams.isEmpty else { return }
        for datagram in datagrams { write(datagram.bytes, to: address) }
        context.flush()
    }

    private func write(_ bytes: [UInt8], to address: SocketAddress) {
        guard let context else { return }
        context.write(wrapOutboundOut(AddressedEnvelope(remoteAddress: address, data: context.channel.allocator.buffer(bytes: bytes))), promise: nil)
    }

    private static func read32(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16 | UInt32(bytes[offset + 2]) << 8 | UInt32(bytes[offset + 3])
    }

    static func now() -> Duration { .nanoseconds(Int64(NIODeadline.now().uptimeNanoseconds)) }
}

/// One outgoing RTP stream's sequence number and timestamp.
private struct StreamCounters {
    let clockStep: UInt32
    private var sequenceNumber: UInt16 = 0
    private(set) var timestamp: UInt32 = 0

    init(clockStep: UInt32) { self.clockStep = clockStep }

    /// A zeroed packet of `size` bytes with the next header; the timestamp moves on with each
    /// frame (a frame's packets share it).
    mutating func header(payloadType: UInt8, marker: Bool, ssrc: UInt32, size: Int, startsFrame: Bool = true) -> [UInt8] {
        sequenceNumber &+= 1
        if startsFrame { timestamp &+= clockStep }
        var packet = [UInt8](repeating: 0, count: size)
        packet[0] = 0x80
        packet[1] = payloadType | (marker ? 0x80 : 0)
        packet[2] = UInt8(sequenceNumber >> 8)
        packet[3] = UInt8(sequenceNumber & 0xFF)
        for byte in 0..<4 {
            packet[4 + byte] = UInt8(truncatingIfNeeded: timestamp >> (24 - 8 * byte))
            packet[8 + byte] = UInt8(truncatingIfNeeded: ssrc >> (24 - 8 * byte))
        }
        return packet
    }
}
