/// One packet of an RTCP compound datagram.
public enum RTCPPacket: Hashable, Sendable {
    case senderReport(RTCPSenderReport)
    case receiverReport(RTCPReceiverReport)
    /// SDES (202), kept opaque: the SFU only forwards or drops it.
    case sourceDescription(count: UInt8, body: [UInt8])
    case goodbye(RTCPGoodbye)
    case pictureLossIndication(senderSSRC: UInt32, mediaSSRC: UInt32)
    case fullIntraRequest(RTCPFullIntraRequest)
    case genericNACK(RTCPGenericNACK)
    case feedback(RTCPOpaqueFeedback)
    /// Any other packet type (APP, XR, …), with the header's five count bits.
    case other(packetType: UInt8, count: UInt8, body: [UInt8])

    enum PacketType {
        static let senderReport: UInt8 = 200
        static let receiverReport: UInt8 = 201
        static let sourceDescription: UInt8 = 202
        static let goodbye: UInt8 = 203
    }

    /// Decodes a compound datagram, every packet or none: any malformed packet fails the whole.
    public static func decodeCompound(_ datagram: [UInt8]) throws(RTPDecodingError) -> [RTCPPacket] {
        var packets: [RTCPPacket] = []
        var walk = try RTCPCompoundWalk(datagram)
        while let header = try walk.next() {
            packets.append(try decode(packetType: header.packetType, count: header.count, body: Array(datagram[header.body])))
        }
        return packets
    }

    /// The datagram holding these packets in order, each padded to whole 32-bit words.
    public static func encodeCompound(_ packets: [RTCPPacket]) -> [UInt8] {
        var datagram: [UInt8] = []
        for packet in packets { packet.append(to: &datagram) }
        return datagram
    }

    public func encoded() -> [UInt8] { Self.encodeCompound([self]) }

    static func decode(packetType: UInt8, count: UInt8, body: [UInt8]) throws(RTPDecodingError) -> RTCPPacket {
        var reader = BigEndianReader(body)
        let malformed = RTPDecodingError.malformedRTCP(packetType: packetType)
        switch packetType {
        case PacketType.senderReport:
            guard let ssrc = reader.readUInt32(), let ntp = reader.readUInt64(), let rtp = reader.readUInt32(),
                let packets = reader.readUInt32(), let octets = reader.readUInt32()
            else { throw malformed }
            let reports = try reportBlocks(count: count, from: &reader, packetType: packetType)
            return .senderReport(RTCPSenderReport(
                ssrc: ssrc, ntpTimestamp: ntp, rtpTimestamp: rtp, packetCount: packets, octetCount: octets,
                reports: reports, profileExtension: reader.readBytes(reader.remaining) ?? []))
        case PacketType.receiverReport:
            guard let ssrc = reader.readUInt32() else { throw malformed }
            let reports = try reportBlocks(count: count, from: &reader, packetType: packetType)
            return .receiverReport(RTCPReceiverReport(
                ssrc: ssrc, reports: reports, profileExtension: reader.readBytes(reader.remaining) ?? []))
        case PacketType.sourceDescription:
            return .sourceDescription(count: count, body: body)
        case PacketType.goodbye:
            var ssrcs: [UInt32] = []
            for _ in 0..<count {
                guard let ssrc = reader.readUInt32() else { throw malformed }
                ssrcs.append(ssrc)
            }
            var reason: [UInt8]?
            if let length = reader.readUInt8() {
                guard let text = reader.readBytes(Int(length)) else { throw malformed }
                reason = text
            }
            return .goodbye(RTCPGoodbye(ssrcs: ssrcs, reason: reason))
        case RTCPFeedbackType.transport, RTCPFeedbackType.payloadSpecific:
            return try feedback(packetType: packetType, format: count, reader: &reader)
        default:
            return .other(packetType: packetType, count: count, body: body)
        }
    }

    private static func reportBlocks(
        count: UInt8, from reader: inout BigEndianReader, packetType: UInt8
    ) throws(RTPDecodingError) -> [RTCPReportBlock] {
        var reports: [RTCPReportBlock] = []
        for _ in 0..<count {
            guard let block = RTCPReportBlock(reading: &reader) else { throw .malformedRTCP(packetType: packetType) }
            reports.append(block)
        }
        return reports
    }

    private static func feedback(packetType: UInt8, format: UInt8, reader: inout BigEndianReader) throws(RTPDecodingError) -> RTCPPacket {
        let malformed = RTPDecodingError.malformedRTCP(packetType: packetType)
        guard let sender = reader.readUInt32(), let media = reader.readUInt32() else { throw malformed }
        let fci = reader.readBytes(reader.remaining) ?? []
        var fciReader = BigEndianReader(fci)
        switch (packetType, format) {
        case (RTCPFeedbackType.payloadSpecific, 1) where fci.isEmpty:
            return .pictureLossIndication(senderSSRC: sender, mediaSSRC: media)
        case (RTCPFeedbackType.payloadSpecific, 4):
            guard fci.count % 8 == 0 else { throw malformed }
            var entries: [RTCPFullIntraRequest.Entry] = []
            while let ssrc = fciReader.readUInt32(), let sequence = fciReader.readUInt8(), fciReader.skip(3) {
                entries.append(.init(ssrc: ssrc, sequenceNumber: sequence))
            }
            return .fullIntraRequest(RTCPFullIntraRequest(senderSSRC: sender, entries: entries))
        case (RTCPFeedbackType.transport, 1):
            guard fci.count % 4 == 0 else { throw malformed }
            var pairs: [RTCPGenericNACK.Pair] = []
            while let id = fciReader.readUInt16(), let mask = fciReader.readUInt16() {
                pairs.append(.init(packetID: id, bitmask: mask))
            }
            return .genericNACK(RTCPGenericNACK(senderSSRC: sender, mediaSSRC: media, pairs: pairs))
        default:
            return .feedback(RTCPOpaqueFeedback(
                packetType: packetType, format: format, senderSSRC: sender, mediaSSRC: media,
                feedbackControlInformation: fci))
        }
    }

    private func append(to datagram: inout [UInt8]) {
        var body: [UInt8] = []
        let packetType: UInt8
        let count: UInt8
        switch self {
        case .senderReport(let report):
            packetType = PacketType.senderReport
            count = UInt8(min(report.reports.count, 31))
            body.appendBigEndian(report.ssrc)
            body.appendBigEndian(report.ntpTimestamp)
            body.appendBigEndian(report.rtpTimestamp)
            body.appendBigEndian(report.packetCount)
            body.appendBigEndian(report.octetCount)
            for block in report.reports.prefix(31) { block.append(to: &body) }
            body += report.profileExtension
        case .receiverReport(let report):
            packetType = PacketType.receiverReport
            count = UInt8(min(report.reports.count, 31))
            body.appendBigEndian(report.ssrc)
            for block in report.reports.prefix(31) { block.append(to: &body) }
            body += report.profileExtension
        case .sourceDescription(let sdesCount, let sdesBody):
            packetType = PacketType.sourceDescription
            count = sdesCount & 0x1F
            body = sdesBody
        case .goodbye(let goodbye):
            packetType = PacketType.goodbye
            count = UInt8(min(goodbye.ssrcs.count, 31))
            for ssrc in goodbye.ssrcs.prefix(31) { body.appendBigEndian(ssrc) }
            if let reason = goodbye.reason {
                body.append(UInt8(min(reason.count, 255)))
                body += reason.prefix(255)
            }
        case .pictureLossIndication(let sender, let media):
            packetType = RTCPFeedbackType.payloadSpecific
            count = 1
            body.appendBigEndian(sender)
            body.appendBigEndian(media)
        case .fullIntraRequest(let request):
            packetType = RTCPFeedbackType.payloadSpecific
            count = 4
            body.appendBigEndian(request.senderSSRC)
            // RFC 5104 §4.3.1.2: the media source SSRC is unused and zero.
            body.appendBigEndian(UInt32(0))
            for entry in request.entries {
                body.appendBigEndian(entry.ssrc)
                body += [entry.sequenceNumber, 0, 0, 0]
            }
        case .genericNACK(let nack):
            packetType = RTCPFeedbackType.transport
            count = 1
            body.appendBigEndian(nack.senderSSRC)
            body.appendBigEndian(nack.mediaSSRC)
            for pair in nack.pairs {
                body.appendBigEndian(pair.packetID)
                body.appendBigEndian(pair.bitmask)
            }
        case .feedback(let feedback):
            packetType = feedback.packetType
            count = feedback.format & 0x1F
            body.appendBigEndian(feedback.senderSSRC)
            body.appendBigEndian(feedback.mediaSSRC)
            body += feedback.feedbackControlInformation
        case .other(let otherType, let otherCount, let otherBody):
            packetType = otherType
            count = otherCount & 0x1F
            body = otherBody
        }
        // Bodies that are not whole words (BYE reasons, opaque ones) get zero bytes, not the
        // padding bit: a BYE reason and an SDES chunk end in zeros by definition.
        body += Array(repeating: 0, count: (4 - body.count % 4) % 4)
        datagram.append(0x80 | count)
        datagram.append(packetType)
        datagram.appendBigEndian(UInt16(clamping: body.count / 4))
        datagram += body
    }
}
