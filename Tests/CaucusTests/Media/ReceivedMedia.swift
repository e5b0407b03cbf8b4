import Caucus
import CaucusCodecs
import Foundation
import NIOConcurrencyHelpers

/// Every frame one user's SDK delivered from one publisher, kept for the test to decode.
final class ReceivedMedia: Sendable {
    /// Each frame with when it arrived.
    private let arrivals = NIOLockedValueBox<[(frame: RemoteFrame, at: ContinuousClock.Instant)]>([])
    private let task: Task<Void, Never>

    init(_ session: CaucusSession, from user: UserID) {
        let stream = session.mediaFrames(from: user)
        let arrivals = arrivals
        task = Task { for await frame in stream { arrivals.withLockedValue { $0.append((frame, .now)) } } }
    }

    private func frames(after mark: Int) -> [RemoteFrame] { arrivals.withLockedValue { $0.dropFirst(mark).map(\.frame) } }

    deinit { task.cancel() }

    /// How many frames so far: a mark to read what came after.
    var count: Int { arrivals.withLockedValue { $0.count } }

    /// When the first frame of `kind` arrived at or after `instant`, if one has.
    func firstArrival(of kind: MediaKind, since instant: ContinuousClock.Instant) -> ContinuousClock.Instant? {
        arrivals.withLockedValue { $0.first { $0.frame.kind == kind && $0.at >= instant }?.at }
    }

    /// When the frames of `kind` that arrived at or after `instant` did.
    func arrivals(of kind: MediaKind, since instant: ContinuousClock.Instant) -> [ContinuousClock.Instant] {
        arrivals.withLockedValue { $0.filter { $0.frame.kind == kind && $0.at >= instant }.map(\.at) }
    }

    func audio(after mark: Int = 0) -> [EncodedFrame] { frames(of: .audio, after: mark) }

    func video(after mark: Int = 0) -> [EncodedFrame] { frames(of: .video, after: mark) }

    func frames(of kind: MediaKind, after mark: Int = 0) -> [EncodedFrame] {
        frames(after: mark).filter { $0.kind == kind }.map(\.frame)
    }

    /// Waits until at least `audio` audio frames and a keyframe plus `video` video frames
    /// after it arrived after `mark`; with `keyframeAfterMark` false, `video` frames after
    /// `mark` of a stream that began with a keyframe (a publisher that sends keyframes only
    /// when asked, as browsers and aiortc do, goes on from the one it sent before).
    func waitFor(audio: Int, video: Int, after mark: Int = 0, keyframeAfterMark: Bool = true, _ what: String) async throws {
        try await eventually(seconds: 30, what) { [self] in
            let pictures = keyframeAfterMark ? self.video(after: mark).drop { !$0.isKeyframe } : self.video(after: mark)[...]
            return self.audio(after: mark).count >= audio && pictures.count >= video
        }
    }

    /// The tone's frequency in the audio after `mark`, decoded by libopus (its first 10
    /// frames left out: the decoder's start).
    func toneFrequency(after mark: Int = 0) throws -> Double {
        let decoder = try OpusDecoder(channels: 2)
        var samples: [Int16] = []
        for (index, frame) in audio(after: mark).enumerated() {
            let decoded = try decoder.decode(frame.bytes)
            if index >= 10 { samples += decoded }
        }
        return TestPublisher.frequency(of: samples)
    }

    /// The mean colour of the last picture libvpx decodes from the video after `mark`,
    /// starting at its first keyframe.
    func lastColour(of kind: MediaKind = .video, after mark: Int = 0) throws -> (red: Double, green: Double, blue: Double)? {
        try lastPicture(of: kind, after: mark)?.meanColour
    }

    /// The last picture libvpx decodes from the video after `mark`, starting at its first
    /// keyframe; with `keyframeAfterMark` false, the last picture of a frame after `mark`, the
    /// whole stream decoded from its first keyframe.
    func lastPicture(of kind: MediaKind = .video, after mark: Int = 0, keyframeAfterMark: Bool = true) throws -> I420Picture? {
        let decoder = try VP8Decoder()
        let before = keyframeAfterMark ? 0 : frames(after: 0).prefix(mark).filter { $0.kind == kind }.count
        var last: I420Picture?
        for (index, frame) in frames(of: kind, after: keyframeAfterMark ? mark : 0).enumerated().drop(while: { !$0.element.isKeyframe }) {
            let pictures = try decoder.decode(frame.bytes)
            if index >= before { last = pictures.last ?? last }
        }
        return last
    }
}

/// Every value a stream gave, kept for the test to read.
final class Collected<Element: Sendable>: Sendable {
    private let values = NIOLockedValueBox<[Element]>([])
    private let task: Task<Void, Never>

    init(_ stream: AsyncStream<Element>) {
        let values = values
        task = Task { for await value in stream { values.withLockedValue { $0.append(value) } } }
    }

    deinit { task.cancel() }

    var all: [Element] { values.withLockedValue { $0 } }
}
