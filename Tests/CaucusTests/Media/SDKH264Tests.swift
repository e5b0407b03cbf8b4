import Caucus
import CaucusCore
import CaucusMedia
import Foundation
import NIOConcurrencyHelpers
import Testing

/// H.264 through the SDK (`Configuration.videoCodec = .h264`), as an Apple app's VideoToolbox
/// encoder would send it: access units in Annex B form. There is no H.264 codec on this
/// machine, so the units are synthetic (SPS, PPS and a 3,000-byte IDR slice for a keyframe, a
/// non-IDR slice otherwise); Ben must get each one whole and byte for byte, with its keyframe
/// flag, starting at a keyframe.
@Suite(.serialized) struct SDKH264Tests {
    static func accessUnit(_ index: Int, keyframe: Bool) -> [UInt8] {
        // No zero bytes in the bodies, so no start code can appear inside a unit.
        let mark = UInt8(index % 250 + 1)
        let slice: [UInt8] = keyframe ? [0x65] + [UInt8](repeating: 0x55, count: 3_000) + [mark] : [0x41, 0x9A, 0x77, mark]
        let units = keyframe ? [[0x67, 0x42, 0xE0, 0x1F, mark], [0x68, 0xCE, 0x3C, 0x80], slice] : [slice]
        return H264AnnexB.stream(of: units)
    }

    @Test func h264AccessUnitsArriveWholeAndInOrderWithTheirKeyframeFlags() async throws {
        let server = try await TestServer.start()
        var configuration = Client.configuration
        configuration.videoCodec = .h264
        let ann = try await server.client("Ann", configuration: configuration)
        let ben = try await server.client("Ben", configuration: configuration)
        let annID = try ann.id
        try await ann.session.videoHelper.start()
        try await ben.session.audioHelper.start(muted: true)
        let received = ReceivedMedia(ben.session, from: annID)
        let sent = NIOLockedValueBox<[[UInt8]: Bool]>([:])
        let video = ann.session.videoHelper
        let keyframeWanted = KeyframeFlag()
        let requests = video.keyframeRequests
        let listener = Task { for await _ in requests { keyframeWanted.set() } }
        defer { listener.cancel() }
        // A VP8 frame is refused: this session's video is H.264.
        #expect(throws: SessionError.self) {
            try video.send(EncodedFrame(codec: .vp8, bytes: [0x10, 2, 3], timestamp: 0, isKeyframe: true))
        }
        let publisher = Task {
            var index = 0
            while !Task.isCancelled {
                let keyframe = keyframeWanted.take() || index % 10 == 0
                let unit = Self.accessUnit(index, keyframe: keyframe)
                sent.withLockedValue { $0[unit] = keyframe }
                _ = try? video.send(EncodedFrame(codec: .h264, bytes: unit, timestamp: UInt32(index * 6_000), isKeyframe: keyframe))
                index += 1
                try await Task.sleep(for: .milliseconds(66))
            }
        }
        defer { publisher.cancel() }
        try await received.waitFor(audio: 0, video: 15, "Ann's H.264 at Ben")
        let frames = received.video()
        #expect(frames.first?.isKeyframe == true, "video starts at a keyframe")
        #expect(frames.allSatisfy { $0.codec == .h264 })
        let known = sent.withLockedValue { $0 }
        for frame in frames {
            let keyframe = known[frame.bytes]
            #expect(keyframe != nil, "a unit Ann never sent (\(frame.size) bytes)")
            #expect(keyframe == frame.isKeyframe)
        }
        // In order: each unit's mark follows the previous one's.
        let marks = frames.map { Int($0.bytes.last!) }
        #expect(zip(marks, marks.dropFirst()).allSatisfy { ($1 - $0 + 250) % 250 >= 1 }, "\(marks)")
        publisher.cancel()
        _ = try? await publisher.value
        await server.stop()
    }

    /// A VP8 user and an H.264 user see each other's audio but not each other's video, and
    /// each SDK says so by user.
    @Test func videoOfAnotherCodecIsReportedUnplayableByUser() async throws {
        let server = try await TestServer.start()
        var h264 = Client.configuration
        h264.videoCodec = .h264
        let ann = try await server.client("Ann")
        let ben = try await server.client("Ben", configuration: h264)
        let (annID, benID) = (try ann.id, try ben.id)
        let annSees = Collected(ann.session.unplayableMedia)
        let benSees = Collected(ben.session.unplayableMedia)
        try await ann.session.videoHelper.start()
        try await ben.session.videoHelper.start()
        try await eventually("Ben told Ann's video is unplayable") { benSees.all.last == [annID: [.video]] }
        try await eventually("Ann told Ben's video is unplayable") { annSees.all.last == [benID: [.video]] }
        try await ben.session.videoHelper.stop()
        try await eventually("Ann told nothing is unplayable any more") { annSees.all.last == [:] }
        await server.stop()
    }
}
