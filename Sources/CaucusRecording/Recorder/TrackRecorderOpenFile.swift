extension TrackRecorder {
    /// The file a track's recorder writes now: its muxer, its timing, and the cluster being
    /// filled. Held in the recorder's optional and changed in place (`file!.append`).
    struct OpenFile: Sendable {
        var index: Int
        var muxer: WebMMuxer
        /// Where its frames go: the sender's spacing, slewed toward the location's clock.
        var timing: FrameTiming
        var codec: WebMTrack.Codec
        /// The cluster being filled: handed over whole (``TrackRecorderAction/writeCluster``)
        /// when the next one starts, so a file on disk always ends at a cluster's end.
        var cluster: [UInt8] = []

        /// Adds a frame's block at `milliseconds` from the file's start; returns the cluster
        /// it completed, if its block starts the next. Changed in place (`file!.append`), never
        /// copied: a copy would share, then duplicate, the cluster's buffer.
        mutating func append(_ bytes: ArraySlice<UInt8>, isKeyframe: Bool, at milliseconds: Int64) throws(WebMMuxerError) -> [UInt8]? {
            var completed: [UInt8]?
            if muxer.startsCluster(track: 1, timestamp: milliseconds, keyframe: isKeyframe), !cluster.isEmpty {
                completed = cluster
                // The next cluster is about as large: its buffer is made that size at once,
                // not grown (and copied) a dozen times on the way.
                let capacity = cluster.capacity
                cluster = []
                cluster.reserveCapacity(capacity)
            }
            do throws(WebMMuxerError) {
                _ = try muxer.append(track: 1, timestamp: milliseconds, keyframe: isKeyframe, frame: bytes, to: &cluster)
            } catch {
                if let completed { cluster = completed }
                throw error
            }
            return completed
        }
    }
}
