import CaucusMedia
import CaucusSFU

extension MediaSlotPlan {
    /// The plan `caucus serve` makes of `offer`: its slots and publications, with the codecs and
    /// extension IDs its answer chose, its own SSRCs drawn from `firstSSRC` on.
    public static func answered(_ offer: SessionDescription, firstSSRC: UInt32) -> MediaSlotPlan {
        var next = firstSSRC
        var plan = MediaSlotPlan(offer: offer) {
            next += 1
            return next
        }
        let options = SDPAnswerOptions(
            iceUfrag: "srvr", icePwd: "0123456789abcdefghijkl",
            fingerprint: SDPFingerprint(algorithm: "sha-256", digest: [UInt8](repeating: 1, count: 32)),
            candidate: TransportAddress(ip: IPAddress("127.0.0.1")!, port: 40000), sessionID: 1)
        plan.accept(try! SDPAnswer(answering: offer, options: options).media)
        return plan
    }
}
