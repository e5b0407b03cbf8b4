/// What both peers (the server's ``MediaPeer`` and the client's ``MediaClientPeer``) do with
/// their SRTP session: turn a datagram into the event it carries, or a packet into a
/// datagram, counting every failure instead of throwing it at the caller.
extension SRTPSession {
    func unprotectedEvent(of datagram: [UInt8], isRTCP: Bool, counters: inout MediaPeerCounters) -> MediaPeerEvent? {
        var packet = datagram
        return unprotectedEvent(inPlace: &packet, isRTCP: isRTCP, counters: &counters)
    }

    /// Unprotects `packet` in place: the event shares its storage, so no byte is copied when the
    /// caller's array is its own. On failure its bytes are unspecified.
    func unprotectedEvent(inPlace packet: inout [UInt8], isRTCP: Bool, counters: inout MediaPeerCounters) -> MediaPeerEvent? {
        do throws(SRTPError) {
            if isRTCP {
                try unprotect(srtcp: &packet)
                return .rtcp(packet)
            }
            try unprotect(srtp: &packet)
            return .rtp(packet)
        } catch {
            counters.count(error)
            return nil
        }
    }

    func protectedDatagram(
        of packet: [UInt8], isRTCP: Bool, to destination: TransportAddress, counters: inout MediaPeerCounters
    ) -> AddressedDatagram? {
        var bytes = packet
        do throws(SRTPError) {
            if isRTCP { try protect(rtcp: &bytes) } else { try protect(rtp: &bytes) }
        } catch {
            counters.protectFailures += 1
            return nil
        }
        return AddressedDatagram(bytes: bytes, destination: destination)
    }
}

extension MediaPeerCounters {
    mutating func count(_ error: SRTPError) {
        switch error {
        case .authenticationFailed: authenticationFailures += 1
        case .replayed, .tooOld: replays += 1
        case .packetTooShort, .malformedHeader, .bufferTooSmall, .invalidKeyingMaterial, .indexExhausted, .cipherFailure:
            malformed += 1
        }
    }
}
