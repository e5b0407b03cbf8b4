import CaucusProtocol

/// The server's answer to an offer, and the peer's receive slots as a slot map with every slot
/// empty: what the user is told when nobody in the session publishes (so no routing follows).
struct MediaAnswer: Sendable {
    let sdp: String
    /// The number of the peer it made (what `MediaPeerLife` names it by).
    let peer: UInt64
    let emptySlots: [MediaSlot]
}
