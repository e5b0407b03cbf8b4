import CaucusCore
import Foundation
internal import CaucusMedia
import NIOCore

/// The SDK's media on its UDP socket: the client-role peer (ICE, DTLS, SRTP) towards the
/// server's media port, the streams this user publishes, and its receive slots, each mapped
/// to the user the server's slot map says fills it. Everything here runs on the channel's
/// event loop; ``MediaConnection`` reaches it from outside.
final class MediaChannelHandler: ChannelInboundHandler {
    typealias InboundIn = AddressedEnvelope<ByteBuffer>
    typealias OutboundOut = AddressedEnvelope<ByteBuffer>

    /// One receive slot: its section, what it carries, who fills it, and its stream.
    struct Slot {
        let mid: String
        let kind: MediaKind
        var user: UserID?
        var stream: ReceiveSlot
    }

    private let peer: MediaClientPeer
    private let serverAddress: SocketAddress
    private var context: ChannelHandlerContext?
    /// What this user publishes, by kind (camera video and screen share are both VP8).
    private var sending: [MediaKind: SendStream]
    /// By the SSRC the server sends each slot with.
    private var slots: [UInt32: Slot]
    private let ssrcByMid: [String: UInt32]
    /// The SSRC this client's RTCP feedback is sent under.
    private let feedbackSSRC: UInt32
    private var connected: EventLoopPromise<Void>?
    private var ticker: RepeatedTask?
    private let deliver: @Sendable (RemoteFrame) -> Void
    private let keyframeRequested: @Sendable (MediaKind) -> Void
    /// Told once when the peer ends on its own (ICE consent lost, DTLS ended by the server).
    private let lost: @Sendable () -> Void
    private var toldLost = false
    /// Video and screen share leave through it; audio, RTCP and repairs do not.
    private var pacer = SendPacer.standard
    private var pacerWake: Scheduled<Void>?
    /// Ticks (20 ms each) since the last reception report: one a second.
    private var ticksSinceReport = 0
    static let ticksPerReport = 50
    /// Whether received audio reaches the app (false after `AudioHelper.stop()`).
    var deliversAudio = true

    init(
        peer: MediaClientPeer, serverAddress: SocketAddress, sending: [MediaKind: SendStream], slots: [UInt32: Slot],
        connected: EventLoopPromise<Void>, deliver: @escaping @Sendable (RemoteFrame) -> Void,
        keyframeRequested: @escaping @Sendable (MediaKind) -> Void, lost: @escaping @Sendable () -> Void
    ) {
        self.peer = peer
        self.serverAddress = serverAddress
        self.sending = sending
        self.slots = slots
        self.ssrcByMid = Dictionary(uniqueKeysWithValues: slots.map { ($0.value.mid, $0.key) })
        self.feedbackSSRC = sending[.audio]?.ssrc ?? sending.values.first?.ssrc ?? 1
        self.connected = connected
        self.deliver = deliver
        self.keyframeRequested = keyframeRequested
        self.lost = lost
    }

    func handlerAdded(context: ChannelHandlerContext) { self.context = context }

    /// The socket is bound: the first connectivity check goes out, and the clock starts.
    func channelActive(context: ChannelHandlerContext) {
        context.fireChannelActive()
        let bound = NIOLoopBound(self, eventLoop: context.eventLoop)
        ticker = context.eventLoop.scheduleRepeatedTask(initialDelay: .milliseconds(20), delay: .milliseconds(20)) { _ in
            bound.value.tick()
        }
        write(peer.start(now: Self.now()).datagrams.map(\.bytes))
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        ticker?.cancel()
        ticker = nil
        pacerWake?.cancel()
        pacerWake = nil
        connected?.fail(SessionError.media("the media connection closed before it was up"))
        connected = nil
        self.context = nil
    }

    // MARK: - From the SDK

    /// Packetises a frame of `kind` and sends it.
    func send(_ frame: EncodedFrame, as kind: MediaKind) throws(SessionError) {
        guard peer.isConnected else { throw .media("the media connection is not up (\(peer.state))") }
        guard var stream = sending[kind] else { throw .media("this connection does not send \(kind)") }
        let packets = try stream.packets(for: frame)
        stream.sent(packets, at: Self.now())
        sending[kind] = stream
        let datagrams = packets.compactMap { peer.protect(rtp: $0.encoded())?.bytes }
        if kind == .audio {
            write(datagrams)
        } else {
            write(pacer.send(datagrams, now: Self.now()))
            wakePacer()
        }
    }

    /// Runs the pacer again when its next datagram may go.
    private func wakePacer() {
        guard pacerWake == nil, let next = pacer.nextRelease, let context else { return }
        let bound = NIOLoopBound(self, eventLoop: context.eventLoop)
        let wait = max(.zero, next - Self.now())
        pacerWake = context.eventLoop.scheduleTask(in: .nanoseconds(Int64(wait / .nanoseconds(1)))) {
            let handler = bound.value
            handler.pacerWake = nil
            handler.write(handler.pacer.release(now: Self.now()))
            handler.wakePacer()
        }
    }

    /// The server's slot map: who fills each slot, by mid. A slot that changes hands waits
    /// for the new publisher's keyframe.
    func apply(_ map: [String: UserID?]) {
        let now = Self.now()
        for (mid, user) in map {
            guard let ssrc = ssrcByMid[mid], var slot = slots[ssrc], slot.user != user else { continue }
            slot.user = user
            let output = slot.stream.publisherChanged(now: now)
            slots[ssrc] = slot
            if user != nil { feedback(output, slot: ssrc) }
        }
    }

    /// Ends the peer: a close_notify to the server, then the channel closes.
    func close() {
        write(peer.close(now: Self.now()).datagrams.map(\.bytes))
        context?.close(promise: nil)
    }

    // MARK: - Channel

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let envelope = unwrapInboundIn(data)
        let now = Self.now()
        // Only the server's address is the server: the peer drops anything else.
        let source = envelope.remoteAddress == serverAddress ? peer.server.address : TransportAddress(ip: .v4(0), port: 0)
        let output = peer.receive([UInt8](envelope.data.readableBytesView), from: source, now: now)
        write(output.datagrams.map(\.bytes))
        for event in output.events {
            switch event {
            case .connected:
                connected?.succeed()
                connected = nil
            case .rtp(let bytes): received(bytes, now: now)
            case .rtcp(let bytes): feedbackReceived(bytes)
            case .closed: continue
            }
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {}

    // MARK: - Private

    private func received(_ bytes: [UInt8], now: Duration) {
        guard let packet = try? RTPPacket(decoding: bytes), var slot = slots[packet.ssrc] else { return }
        let output = slot.stream.receive(packet, now: now)
        slots[packet.ssrc] = slot
        feedback(output, slot: packet.ssrc)
        guard let user = slot.user, slot.kind != .audio || deliversAudio else { return }
        for frame in output.frames { deliver(RemoteFrame(user: user, kind: slot.kind, frame: frame)) }
    }

    /// NACKs and keyframe requests from the server, about what this user publishes.
    private func feedbackReceived(_ bytes: [UInt8]) {
        guard let packets = try? RTCPPacket.decodeCompound(bytes) else { return }
        for packet in packets {
            if case .senderReport(let report) = packet, slots[report.ssrc] != nil {
                // The slot's current source, as the server forwards its reports.
                slots[report.ssrc]?.stream.reception.senderReport(ntpTimestamp: report.ntpTimestamp, arrival: Self.now())
                continue
            }
            for (kind, stream) in sending where stream.codec != .opus {
                switch packet {
                case .pictureLossIndication(_, let media) where media == stream.ssrc:
                    keyframeRequested(kind)
                case .fullIntraRequest(let request) where request.entries.contains(where: { $0.ssrc == stream.ssrc }):
                    keyframeRequested(kind)
                case .genericNACK(let nack) where nack.mediaSSRC == stream.ssrc:
                    write(stream.retransmissions(of: nack.lostSequenceNumbers).compactMap { peer.protect(rtp: $0.encoded())?.bytes })
                default:
                    continue
                }
            }
        }
    }

    private func tick() {
        let now = Self.now()
        if let deadline = peer.nextDeadline, deadline <= now {
            write(peer.handleTimeout(now: now).datagrams.map(\.bytes))
            if case .closed(let reason) = peer.state {
                connected?.fail(SessionError.media("the media connection failed: \(reason)"))
                connected = nil
            }
        }
        if case .closed(let reason) = peer.state, reason != .closedByUs, !toldLost {
            toldLost = true
            lost()
        }
        guard peer.isConnected else { return }
        ticksSinceReport += 1
        if ticksSinceReport >= Self.ticksPerReport {
            ticksSinceReport = 0
            report(now: now)
        }
        for ssrc in Array(slots.keys) {
            guard var slot = slots[ssrc] else { continue }
            let output = slot.stream.tick(now: now)
            slots[ssrc] = slot
            feedback(output, slot: ssrc)
            if let user = slot.user, slot.kind != .audio || deliversAudio {
                for frame in output.frames { deliver(RemoteFrame(user: user, kind: slot.kind, frame: frame)) }
            }
        }
    }

    /// A receiver report with a block for each slot that received anything (RFC 3550 §6.4.2;
    /// at most 31 blocks fit one report, more than the offer's slots).
    private func report(now: Duration) {
        // A sender report per published stream, each its own compound packet.
        let ntp = Self.ntpNow()
        for kind in sending.keys.sorted(by: { $0.rawValue < $1.rawValue }) {
            guard let sender = sending[kind]?.senderReport(now: now, ntp: ntp),
                let datagram = peer.protect(rtcp: RTCPPacket.senderReport(sender).encoded())
            else { continue }
            write([datagram.bytes])
        }
        var blocks: [RTCPReportBlock] = []
        for ssrc in slots.keys.sorted() {
            if let block = slots[ssrc]?.stream.reception.reportBlock(ssrc: ssrc, now: now) { blocks.append(block) }
        }
        guard !blocks.isEmpty else { return }
        let report = RTCPPacket.receiverReport(RTCPReceiverReport(ssrc: feedbackSSRC, reports: Array(blocks.prefix(31))))
        if let datagram = peer.protect(rtcp: report.encoded()) { write([datagram.bytes]) }
    }

    /// Sends a slot's NACKs and keyframe request, in one compound packet after an empty
    /// receiver report (RFC 3550 §6.1: a compound packet starts with a report).
    private func feedback(_ output: ReceiveSlot.Output, slot ssrc: UInt32) {
        guard peer.isConnected, !output.nacks.isEmpty || output.requestKeyframe else { return }
        var packets: [RTCPPacket] = [.receiverReport(RTCPReceiverReport(ssrc: feedbackSSRC))]
        if !output.nacks.isEmpty {
            packets.append(.genericNACK(RTCPGenericNACK(senderSSRC: feedbackSSRC, mediaSSRC: ssrc, lost: output.nacks)))
        }
        if output.requestKeyframe { packets.append(.pictureLossIndication(senderSSRC: feedbackSSRC, mediaSSRC: ssrc)) }
        if let datagram = peer.protect(rtcp: RTCPPacket.encodeCompound(packets)) { write([datagram.bytes]) }
    }

    private func write(_ datagrams: [[UInt8]]) {
        guard let context, !datagrams.isEmpty else { return }
        for bytes in datagrams {
            let envelope = AddressedEnvelope(remoteAddress: serverAddress, data: context.channel.allocator.buffer(bytes: bytes))
            context.write(wrapOutboundOut(envelope), promise: nil)
        }
        context.flush()
    }

    /// The wall clock in RFC 3550's NTP format: seconds since 1900 in the high 32 bits.
    static func ntpNow() -> UInt64 {
        let unix = Date().timeIntervalSince1970 + 2_208_988_800
        let seconds = UInt64(unix)
        return seconds << 32 | UInt64((unix - Double(seconds)) * 4_294_967_296)
    }

    /// The peer's monotonic clock.
    static func now() -> Duration { .nanoseconds(Int64(NIODeadline.now().uptimeNanoseconds)) }
}
