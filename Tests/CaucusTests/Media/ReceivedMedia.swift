import Caucus
import CaucusCodecs
import Foundation
import NIOConcurrencyHelpers

/// Every frame one user's SDK delivered from one publisher, kept for the test to decode.
final class ReceivedMedia: Sendable {
    private let frames = NIOLockedValueBox<[RemoteFrame]>([])
    private let task: Task<Void, Never>

    init(_ session: CaucusSession, from user: UserID) {
        let stream = session.mediaFrames(from: user)
        let frames = frames
        task = Task { for await frame in stream { frames.withLockedValue { $0.append(frame) } } }
    }

    deinit { task.cancel() }

    /// How many frames so far: a mark to read what came after.
    var count: Int { frames.withLockedValue { $0.count } }

    func audio(after mark: Int = 0) -> [EncodedFrame] {
        frames.withLockedValue { Array($0.dropFirst(mark)) }.filter { $0.kind == .audio }.map(\.frame)
    }

    func video(after mark: Int = 0) -> [EncodedFrame] { frames(of: .video, after: mark) }

    func frames(of kind: MediaKind, after mark: Int = 0) -> [EncodedFrame] {
        frames.withLockedValue { Array($0.dropFirst(mark)) }.filter { $0.kind == kind }.map(\.frame)
    }

    /// Waits until at least `audio` audio frames and a keyframe plus `video` video frames
    /// after it arrived after `mark`.
    func waitFor(audio: Int, video: Int, after mark: Int = 0, _ what: String) async throws {
        try await eventually(seconds: 30, what) { [self] in
            let pictures = self.video(after: mark).drop { !$0.isKeyframe }
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
        let decoder = try VP8Decoder()
        var last: I420Picture?
        for frame in frames(of: kind, after: mark).drop(while: { !$0.isKeyframe }) {
            last = try decoder.decode(frame.bytes).last ?? last
        }
        return last?.meanColour
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
