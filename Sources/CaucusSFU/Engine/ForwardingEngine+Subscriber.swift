import CaucusMedia

extension ForwardingEngine {
    /// A user with a media peer: its slots (from its offer) and their rewriters. A class: the
    /// packet path and a recomputation read and change it in place through the engine's
    /// dictionary, where a struct was copied whole by every read (a thousand users' start
    /// recomputes them all while forwarding on the loop waits). Only the engine holds one.
    final class Subscriber {
        let plan: MediaSlotPlan
        /// Each slot's rewriter, which also holds how its source is renumbered for this subscriber.
        var rewriters: SlotRewriters
        /// The catalog numbers of each slot's format, of the first slot's per kind (what a
        /// publication must translate to for this subscriber to receive it: every slot of a
        /// kind comes from one offer), and of each publication's.
        let slotFormats: [SlotID: Int]
        let receiveFormats: [StreamKind: Int]
        let publishedFormats: [StreamKind: Int]
        /// Each slot's RTX stream (RFC 4588), where its answer negotiated RTX: the SSRC the
        /// answer announced, and the sequence number its next retransmission takes.
        var retransmissionStreams: [SlotID: RTXEncapsulation]
        /// Whether its stack takes those RTX repairs, judged by its NACKs and reports.
        var retransmissionAcceptance = RetransmissionAcceptance()
        /// The slot map as the latest recomputation left it.
        var currentMap: SubscriberSlotMap?
        /// The slot map last sent, and on which connection.
        var sentMap: SubscriberSlotMap?
        var sentTo: SignallingChannelID?

        /// The publisher the last slot map sent said fills `slot` (nil: empty, or none sent).
        func toldPublisher(in slot: SlotID) -> Int? {
            guard let sentMap, let mid = plan.receiveSlots.first(where: { $0.slot == slot })?.mid else { return nil }
            return sentMap.slots.first { $0.mid == mid }?.publisher
        }

        init(plan: MediaSlotPlan, catalog: inout FormatCatalog) {
            self.plan = plan
            rewriters = SlotRewriters(plan.receiveSlots.map { SlotRewriter(slot: $0.slot, outgoingSSRC: $0.outgoingSSRC) })
            var slotFormats: [SlotID: Int] = [:]
            var receiveFormats: [StreamKind: Int] = [:]
            var retransmissionStreams: [SlotID: RTXEncapsulation] = [:]
            for slot in plan.receiveSlots {
                guard let format = slot.format else { continue }
                if let payloadType = format.retransmissionPayloadType {
                    // Any first number will do (RFC 3550 asks for a random one against known-
                    // plaintext attacks, which SRTP makes moot); the SSRC is random already.
                    retransmissionStreams[slot.slot] = RTXEncapsulation(
                        ssrc: slot.retransmissionSSRC, payloadType: payloadType, sequenceNumber: UInt16(truncatingIfNeeded: slot.retransmissionSSRC))
                }
                let id = catalog.id(of: format)
                slotFormats[slot.slot] = id
                if receiveFormats[slot.slot.kind] == nil { receiveFormats[slot.slot.kind] = id }
            }
            self.slotFormats = slotFormats
            self.receiveFormats = receiveFormats
            self.retransmissionStreams = retransmissionStreams
            publishedFormats = plan.publishedFormats.mapValues { catalog.id(of: $0) }
        }

        /// `slot`'s rewriter's header for a packet (``SlotRewriter/rewrite(ssrc:sequenceNumber:timestamp:payloadLength:arrival:startsKeyframe:)``),
        /// the rewriter changed in place; nil when the slot has none or it declines the packet.
        func rewrite(
            slot: SlotID, ssrc: UInt32, sequenceNumber: UInt16, timestamp: UInt32, payloadLength: Int, arrival: Duration,
            startsKeyframe: Bool
        ) -> RewrittenHeader? {
            guard let position = rewriters.position(of: slot) else { return nil }
            return rewriters[position].rewrite(
                ssrc: ssrc, sequenceNumber: sequenceNumber, timestamp: timestamp, payloadLength: payloadLength, arrival: arrival,
                startsKeyframe: startsKeyframe)
        }
    }
}

extension ForwardingEngine {
    /// The padding-only packet (RFC 3550 §5.1: P set, four octets of padding) in `slot`'s own
    /// payload type that ends what the slot showed (``SlotRewriter/closingHeader(at:)``), as a
    /// copy for `user`; nil when the slot has sent nothing or its section has no format.
    func closingCopy(to user: Int, in slot: MediaSlotPlan.ReceiveSlot, header: RewrittenHeader?) -> Copy? {
        guard let header, let format = slot.format, let identity = HeaderTranslation(from: format, to: format) else { return nil }
        var packet: [UInt8] = [0xA0, format.codec.payloadType & 0x7F, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4]
        packet.withUnsafeMutableBytes { header.write(into: $0) }
        return Copy(subscriber: user, packet: packet, header: header, translation: identity)
    }
}
