import Caucus
import Foundation
import Testing

/// What `CrossStackMediaTests` checks at each step: that each of the four users decodes each
/// of the other three, and how soon media came back after a cut or a restart.
struct CrossStackChecks: Sendable {
    /// Receiver → publisher → what the receiver's SDK delivered (the SDK users').
    let received: [String: [String: ReceivedMedia]]
    /// The aiortc and Chromium users.
    let peers: CrossStackPeers

    typealias Tests = CrossStackMediaTests

    /// A tone is right within 2 % (the issue's bound); a colour within this much per channel
    /// (0–255) after two encoders' colour conversions (the browser's fake camera's is BT.601
    /// limited range, libvpx's and FFmpeg's their own).
    static let colourTolerance = 20.0
    /// Fewer than these since the step's start is not decoding: the aiortc and Chromium users
    /// read a tone 10 times a second, and aiortc sends 10 frames a second.
    static let minimumToneReadings = 5
    static let minimumFrames = 3

    /// One direction's media back for good after its resumption: its first frame (or
    /// recognition) after the last interruption.
    struct Resumption: CustomStringConvertible {
        let publisher: String
        let receiver: String
        let kind: String
        /// Seconds from the resumption; nil when the direction was still interrupted at the
        /// end of the window watched.
        let seconds: Double?

        var description: String {
            "\(publisher) → \(receiver), \(kind): " + (seconds.map { String(format: "%.2f s", $0) } ?? "not back")
        }
    }

    /// Media counts as interrupted by a gap longer than this between frames (or recognitions):
    /// more than any publisher's frame interval or a reading's on a loaded machine.
    static let interruption = 0.5
    /// How long after a resumption each direction is watched: the 3 s bound, then as long
    /// again to see it stay.
    static let watched = 6.0

    /// When media is back for good in `times` (seconds from a resumption): the first after the
    /// last interruption up to `watched`; nil if the last came more than `interruption` before.
    static func backForGood(_ times: [Double]) -> Double? {
        let seen = times.filter { $0 >= 0 && $0 <= watched }.sorted()
        guard let last = seen.last, watched - last <= interruption else { return nil }
        var back = seen[0]
        for (earlier, later) in zip(seen, seen.dropFirst()) where later - earlier > interruption { back = later }
        return back
    }

    /// Waits until every user decodes every other's tone and colour from now on, and checks it.
    /// Video is decoded as the receiver's decoder would, from the stream's first keyframe on:
    /// Chromium and aiortc send a keyframe only when asked, and a move that keeps a slot's
    /// publisher asks for none.
    func everyoneDecodes(_ step: String) async throws {
        let marks = received.mapValues { $0.mapValues(\.count) }
        try await peers.mark()
        var lines: [String] = []
        for receiver in received.keys.sorted() {
            for publisher in received[receiver, default: [:]].keys.sorted() {
                let media = try #require(received[receiver]?[publisher])
                let mark = marks[receiver]?[publisher] ?? 0
                let sent = try #require(Tests.palette[publisher])
                do {
                    try await media.waitFor(audio: 50, video: 5, after: mark, keyframeAfterMark: false, "\(publisher) → \(receiver) \(step)")
                } catch {
                    let video = media.video(after: mark)
                    throw TestFailure(
                        "\(error): \(media.audio(after: mark).count) audio frames, \(video.count) video frames "
                            + "(\(video.filter(\.isKeyframe).count) keyframes) since the step began")
                }
                let tone = try media.toneFrequency(after: mark)
                #expect(abs(tone - sent.tone) / sent.tone < 0.02, "\(step): \(publisher) → \(receiver): a tone of \(tone) Hz, sent \(sent.tone)")
                let picture = try #require(try media.lastPicture(after: mark, keyframeAfterMark: false), "\(step): \(publisher) → \(receiver): no picture decoded")
                let colour = picture.meanColour
                let channels = [colour.red, colour.green, colour.blue]
                #expect(
                    zip(channels, sent.colour).allSatisfy { abs($0 - Double($1)) < Self.colourTolerance },
                    "\(step): \(publisher) → \(receiver): colour \(channels), sent \(sent.colour)")
                #expect([picture.width, picture.height] == sent.size, "\(step): \(publisher) → \(receiver): \(picture.width)×\(picture.height)")
                lines.append(
                    "\(publisher) → \(receiver): \(String(format: "%.1f", tone)) Hz, colour \(channels.map { Int($0.rounded()) }), "
                        + "\(picture.width)×\(picture.height)")
            }
        }
        // The script's users: asked until everything is right, or for 30 s.
        var report: [String: CrossStackPeers.Reception] = [:]
        var problems: [String] = []
        let deadline = ContinuousClock.now + .seconds(30)
        repeat {
            try await Task.sleep(for: .milliseconds(300))
            report = try await peers.report()
            problems = Self.problems(report)
        } while !problems.isEmpty && ContinuousClock.now < deadline
        #expect(problems.isEmpty, "\(step): \(problems.joined(separator: "; "))")
        if !problems.isEmpty { print("CrossStackMediaTests: \(step): the script's users' slots: \(await peers.slots())") }
        for (receiver, _) in Tests.scriptUsers {
            for publisher in Tests.everyone where publisher != receiver {
                let tones = report[receiver]?.audio[publisher] ?? []
                let sizes = Set(report[receiver]?.video[publisher] ?? []).map { $0.map(String.init).joined(separator: "×") }
                lines.append("\(publisher) → \(receiver): \(String(format: "%.1f", Self.median(tones))) Hz, frames of \(sizes.sorted())")
            }
        }
        print("CrossStackMediaTests: \(step):\n  " + lines.joined(separator: "\n  "))
    }

    /// What is wrong with what the script's users recognised, by publisher and receiver.
    static func problems(_ report: [String: CrossStackPeers.Reception]) -> [String] {
        var problems: [String] = []
        for (receiver, stack) in Tests.scriptUsers {
            guard let reception = report[receiver] else {
                problems.append("no report from \(receiver)")
                continue
            }
            for publisher in Tests.everyone where publisher != receiver {
                guard let sent = Tests.palette[publisher] else { continue }
                let tones = reception.audio[publisher] ?? []
                if tones.count < minimumToneReadings {
                    problems.append("\(publisher) → \(receiver) (\(stack)), audio: \(tones.count) readings of its \(sent.tone) Hz")
                } else if abs(median(tones) - sent.tone) / sent.tone >= 0.02 {
                    problems.append("\(publisher) → \(receiver) (\(stack)), audio: \(median(tones)) Hz, sent \(sent.tone)")
                }
                let sizes = reception.video[publisher] ?? []
                if sizes.count < minimumFrames {
                    problems.append("\(publisher) → \(receiver) (\(stack)), video: \(sizes.count) frames of its colour \(sent.colour)")
                } else if Set(sizes) != [sent.size] {
                    problems.append("\(publisher) → \(receiver) (\(stack)), video: frames of \(Set(sizes)), sent \(sent.size)")
                }
            }
        }
        return problems
    }

    static func median(_ values: [Double]) -> Double {
        values.isEmpty ? .nan : values.sorted()[values.count / 2]
    }

    /// How soon each direction to and from `subjects` carried media again for good: from the
    /// later of its two ends' resumptions (an SDK user's from `sdkResumed`, the script's users'
    /// at `scriptResumed`) to its first frame after the last interruption (`backForGood`) at
    /// the receiver's SDK, or the script user's recognition (its times are from its mark,
    /// taken at `scriptMarked`, at or after every resumption it is compared with: the figure
    /// counts from the resumption, so it can only be too large). Watches `watched` seconds.
    func resumption(
        of subjects: Set<String>, sdkResumed: [String: ContinuousClock.Instant], scriptResumed: ContinuousClock.Instant,
        scriptMarked: ContinuousClock.Instant
    ) async throws -> [Resumption] {
        func resumed(_ user: String) -> ContinuousClock.Instant { sdkResumed[user] ?? scriptResumed }
        let latest = ([scriptResumed] + sdkResumed.values).max() ?? scriptResumed
        try await Task.sleep(until: latest + .seconds(Self.watched) + .milliseconds(100))
        var figures: [Resumption] = []
        for (receiver, byPublisher) in received {
            for (publisher, media) in byPublisher where subjects.contains(receiver) || subjects.contains(publisher) {
                let start = max(resumed(receiver), resumed(publisher))
                for kind in [MediaKind.audio, .video] {
                    let times = media.arrivals(of: kind, since: start).map { ($0 - start).seconds }
                    figures.append(Resumption(publisher: publisher, receiver: receiver, kind: "\(kind)", seconds: Self.backForGood(times)))
                }
            }
        }
        let report = try await peers.report()
        for (receiver, _) in Tests.scriptUsers {
            for publisher in Tests.everyone where publisher != receiver && (subjects.contains(receiver) || subjects.contains(publisher)) {
                let offset = (scriptMarked - max(resumed(receiver), resumed(publisher))).seconds
                for kind in ["audio", "video"] {
                    let times = (report[receiver]?.times[publisher]?[kind] ?? []).map { $0 + offset }
                    figures.append(Resumption(publisher: publisher, receiver: receiver, kind: kind, seconds: Self.backForGood(times)))
                }
            }
        }
        if figures.contains(where: { $0.seconds == nil }) {
            print("CrossStackMediaTests: the script's users' slots: \(await peers.slots())")
        }
        return figures
    }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
