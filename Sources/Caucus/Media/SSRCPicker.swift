/// The SSRCs a media offer sends from: three distinct random ones (audio, camera, screen
/// share), new for every offer, so an offer the server refused because another user of the
/// session sends from one of them is made again with others (`MediaEngine`). A test queues
/// its own to make that collision happen.
struct SSRCPicker: Sendable {
    /// Taken first, in order, before any random one.
    var queued: [UInt32] = []
    /// How many offers' SSRCs were picked.
    private(set) var offers = 0

    /// Three distinct non-zero SSRCs.
    mutating func three() -> (UInt32, UInt32, UInt32) {
        offers += 1
        var picked: [UInt32] = []
        while picked.count < 3 {
            let next = queued.isEmpty ? UInt32.random(in: 1...UInt32.max) : queued.removeFirst()
            if next != 0, !picked.contains(next) { picked.append(next) }
        }
        return (picked[0], picked[1], picked[2])
    }
}
