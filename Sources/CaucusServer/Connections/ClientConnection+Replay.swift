import NIOCore

/// A resume's missed events, written under flow control: a few at a time, the next ones once
/// the socket has taken the last. They are not counted against the outbound bound (they are
/// the session's replay window, already in memory, and as many as the documented window), so
/// a resume of thousands of events does not cut the client off as slow; frames sent while
/// the replay is under way queue behind it, counted as usual, so a client that cannot keep
/// up with the session is still cut off.
extension ClientConnection {
    /// The replay being written, and what waits for it.
    struct ReplayStream {
        var remaining: ArraySlice<ByteBuffer>
        var behind: [(buffers: [ByteBuffer], count: Int, bytes: Int)] = []
    }

    /// Frames written at a time: enough to keep the socket busy, few enough that the replay
    /// never holds much more than a socket buffer's worth in NIO's queue.
    static let replayChunk = 128

    /// Sends `frames` (a resume's reply and its missed events), in order, before anything
    /// sent after this call. Returns false if the connection is closed.
    @discardableResult
    func sendReplay(_ frames: [ByteBuffer]) -> Bool {
        guard !isClosed, !frames.isEmpty else { return false }
        channel.eventLoop.execute { self.startReplay(frames) }
        return true
    }

    private func startReplay(_ frames: [ByteBuffer]) {
        if replay.value != nil {
            replay.value!.remaining += frames
            return
        }
        replay.value = ReplayStream(remaining: frames[...])
        writeNextChunk()
    }

    /// Writes the next chunk and flushes; once the socket took it, the next. Then what was
    /// sent meanwhile goes, in order, and writes go straight out again.
    private func writeNextChunk() {
        guard var stream = replay.value else { return }
        guard channel.isActive else {
            // The socket is gone: nothing more will be written; the queued frames are let go.
            replay.value = nil
            for waiting in stream.behind { releaseUnwritten(waiting.count, bytes: waiting.bytes) }
            return
        }
        if stream.remaining.isEmpty {
            replay.value = nil
            for waiting in stream.behind { writeNow(waiting.buffers, counting: waiting.count, bytes: waiting.bytes) }
            return
        }
        let chunk = stream.remaining.prefix(Self.replayChunk)
        stream.remaining = stream.remaining.dropFirst(chunk.count)
        replay.value = stream
        let promise = channel.eventLoop.makePromise(of: Void.self)
        for (index, frame) in zip(chunk.indices, chunk) {
            channel.write(frame, promise: index == chunk.indices.last ? promise : nil)
        }
        channel.flush()
        promise.futureResult.whenComplete { _ in self.writeNextChunk() }
    }
}
