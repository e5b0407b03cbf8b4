import CaucusMedia

/// Redundant audio (RFC 2198) on the forwarding path: a RED packet carries its primary
/// encoding after copies of earlier ones, so a receiver that lost a packet recovers its audio
/// from the next. The server never builds redundancy: it passes a publisher's RED on to a
/// subscriber that negotiated RED, and hands one that did not only the primary encoding.
///
/// Both work in place on the forwarded copy: a RED payload is a run of block headers (four
/// bytes with the F bit set for each redundant block, then one byte for the primary), the
/// redundant blocks' data, and the primary's data last.
enum RedundantAudio {
    /// Replaces the RED payload by its primary block's data (moved to where the payload
    /// starts; padding dropped) and returns the packet's new length. Nil when the payload is not
    /// well-formed RED, its primary is not `primaryPayloadType`, or the primary is empty: such
    /// a packet has nothing the subscriber can decode.
    static func stripToPrimary(_ packet: UnsafeMutableRawBufferPointer, length: Int, primaryPayloadType: UInt8) -> Int? {
        guard let payload = RTPPayload.bounds(in: packet, length: length) else { return nil }
        var offset = payload.lowerBound
        var redundantBytes = 0
        while offset < payload.upperBound, packet[offset] & 0x80 != 0 {
            guard offset + 4 <= payload.upperBound else { return nil }
            redundantBytes += Int(packet[offset + 2] & 0x03) << 8 | Int(packet[offset + 3])
            offset += 4
        }
        guard offset < payload.upperBound, packet[offset] & 0x7F == primaryPayloadType & 0x7F else { return nil }
        let primaryStart = offset + 1 + redundantBytes
        guard primaryStart < payload.upperBound else { return nil }
        let primaryLength = payload.upperBound - primaryStart
        if let base = packet.baseAddress {
            (base + payload.lowerBound).copyMemory(from: base + primaryStart, byteCount: primaryLength)
        }
        packet[0] &= ~0x20
        return payload.lowerBound + primaryLength
    }

    /// Renumbers each block header's payload type from the publisher's number for the primary
    /// codec to the subscriber's. False when the payload is not well-formed RED.
    static func renumberBlocks(_ packet: UnsafeMutableRawBufferPointer, length: Int, from incoming: UInt8, to outgoing: UInt8) -> Bool {
        guard let payload = RTPPayload.bounds(in: packet, length: length) else { return false }
        var offset = payload.lowerBound
        while offset < payload.upperBound {
            let header = packet[offset]
            if header & 0x7F == incoming & 0x7F { packet[offset] = header & 0x80 | outgoing & 0x7F }
            guard header & 0x80 != 0 else { return true }
            offset += 4
        }
        return false
    }
}
