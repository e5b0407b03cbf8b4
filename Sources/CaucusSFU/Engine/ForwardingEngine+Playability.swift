import CaucusMedia

extension ForwardingEngine {
    /// Whether a published stream can fill a slot of a format.
    enum Playability {
        struct Key: Hashable {
            let stream: PublishedStream
            let slotFormat: Int
        }

        /// No incoming SSRC is known for it (its publisher offered none yet): nobody receives
        /// it, nobody is told.
        case notPublished
        case playable
        /// Its codec cannot be carried in the slot: the subscriber is told in its slot map.
        case unplayable
    }

    func findPlayability(of stream: PublishedStream, in slotFormat: Int) -> Playability {
        guard let ssrc = ssrcsByStream[stream] else { return .notPublished }
        guard let format = upTracks[ssrc]?.format, catalog.translation(from: format, to: slotFormat) != nil else { return .unplayable }
        return .playable
    }
}
