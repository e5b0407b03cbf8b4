import CaucusRecording
import Foundation

/// `caucus bench media --record`: the cost of recording every room, in the same run as the
/// forwarding it rides on. After the forwarding window without recording, `rounds` times (3 by
/// default, `--record-rounds`):
/// the host records every room; once the files have started (each video at its keyframe), a
/// window with recording; then recording stopped and a window without. Each window with
/// recording is set against the mean of the two without around it, so the VM's drift within
/// a run cancels; the figure is the median of the rounds' ratios.
///
/// The ratio is split in two, read from the server in the same windows: the recording
/// writer's own CPU (`caucus_recording_writer_cpu_seconds_total`, each of its jobs timed on its
/// thread) and the rest, which is the forwarding's (the engine's tap, the copy into batches,
/// the hand-over). The writer's part is measured directly, without the rounds' noise.
struct MediaBenchRecording {
    static let writerCPUSeries = "caucus_recording_writer_cpu_seconds_total"

    /// The windows without recording (the first is the forwarding window before), and with.
    let without: [MediaBenchSteps.Window]
    let with: [MediaBenchSteps.Window]
    /// The writer's CPU seconds in each window with recording.
    let writerCPU: [Double]
    /// Bytes the recordings grew by during the windows with recording, and their length.
    let bytes: Int64
    let seconds: Double
    let files: Int

    static func measure(
        host: BenchUser, folder: String, steps: MediaBenchSteps, before: MediaBenchSteps.Window, rounds: Int, cpu: () -> ProcessCPU.Times?,
        writerCPU: () async throws -> Double
    ) async throws -> MediaBenchRecording {
        let root = folder + "/recordings"
        var (without, with, writer) = ([before], [MediaBenchSteps.Window](), [Double]())
        var (bytes, seconds) = (Int64(0), 0.0)
        for _ in 0..<rounds {
            try await host.request("startRecording", #""all":true"#)
            // Every file started (video waits for the keyframe it asked for) before the window.
            try await Task.sleep(for: .seconds(2))
            let grownFrom = Self.bytes(under: root).bytes
            let started = ContinuousClock.now
            let writerBefore = try await writerCPU()
            with.append(try await steps.measure(cpu: cpu))
            writer.append(try await writerCPU() - writerBefore)
            seconds += (ContinuousClock.now - started).milliseconds / 1_000
            bytes += Self.bytes(under: root).bytes - grownFrom
            try await host.request("stopRecording", #""all":true"#)
            try await Task.sleep(for: .seconds(1))
            without.append(try await steps.measure(cpu: cpu))
        }
        return MediaBenchRecording(
            without: without, with: with, writerCPU: writer, bytes: bytes, seconds: seconds, files: Self.bytes(under: root).files / max(rounds, 1))
    }

    /// Per round, CPU per forwarded packet with recording over the mean of the windows without
    /// before and after it.
    var ratios: [Double] {
        with.indices.map { with[$0].cpuPerPacket / notRecording(around: $0) }
    }

    /// The CPU per packet of the windows without recording before and after round `round`.
    private func notRecording(around round: Int) -> Double {
        (without[round].cpuPerPacket + without[round + 1].cpuPerPacket) / 2
    }

    /// Per round, the writer's CPU seconds per packet forwarded in the window.
    var writerCPUPerPacket: [Double] {
        with.indices.map { writerCPU[$0] / Double(max(with[$0].packets, 1)) }
    }

    /// Per round, the writer's CPU per packet over the CPU per packet of the windows without
    /// recording around it: the writer's points of ``ratios``.
    var writerPoints: [Double] {
        zip(writerCPUPerPacket, with.indices).map { perPacket, round in perPacket / notRecording(around: round) }
    }

    func report(rooms: Int, into report: inout Report) {
        let perPacket = { (windows: [MediaBenchSteps.Window]) in
            windows.map { ($0.cpuPerPacket * 1e6).formatted(decimals: 2) }.joined(separator: ", ") + " µs"
        }
        report.add("recording every room: forwarded", "\(Int(with.map(\.perSecond).reduce(0, +) / Double(max(with.count, 1)))) packets/s")
        report.add("recording every room: CPU per forwarded packet, by round", perPacket(with))
        report.add("not recording: CPU per forwarded packet, before and after each", perPacket(without))
        report.add("CPU per packet, recording / not, by round", ratios.map { $0.formatted(decimals: 3) + "×" }.joined(separator: ", "))
        let median = ratios.sorted()[ratios.count / 2]
        report.add("CPU per packet, recording / not (median of \(ratios.count) rounds)", median.formatted(decimals: 3) + "×")
        report.add(
            "recording writer: CPU per forwarded packet, by round",
            writerCPUPerPacket.map { ($0 * 1e6).formatted(decimals: 3) }.joined(separator: ", ") + " µs")
        let shares = with.indices.map { writerCPU[$0] / max(with[$0].cpuSeconds, 1e-9) * 100 }
        report.add("recording writer: share of the server's CPU while recording, by round", shares.map { $0.formatted(decimals: 2) + " %" }.joined(separator: ", "))
        // What is left of the ratio once the writer's points are taken out: the forwarding's part.
        let points = writerPoints
        let writerMedian = points.sorted()[points.count / 2]
        let rest = zip(ratios, points).map { $0 - $1 }.sorted()
        report.add("recording writer's points of the ratio (median of \(points.count) rounds)", (writerMedian * 100).formatted(decimals: 2))
        report.add("CPU per packet, recording less the writer / not (median)", rest[rest.count / 2].formatted(decimals: 3) + "×")
        let perRoomMinute = Double(bytes) / seconds * 60 / Double(max(rooms, 1))
        report.add("disk written per room per minute", (perRoomMinute / 1_048_576).formatted(decimals: 2) + " MiB")
        report.add("recorded files (a round)", "\(files)")
    }

    /// The bytes and the media files (WebM, Matroska) under `root`.
    static func bytes(under root: String) -> (bytes: Int64, files: Int) {
        guard let walker = FileManager.default.enumerator(atPath: root) else { return (0, 0) }
        var total: Int64 = 0
        var files = 0
        for case let path as String in walker {
            let attributes = try? FileManager.default.attributesOfItem(atPath: root + "/" + path)
            guard attributes?[.type] as? FileAttributeType == .typeRegular else { continue }
            total += (attributes?[.size] as? NSNumber)?.int64Value ?? 0
            if RecordingLayout.isMediaFileName((path as NSString).lastPathComponent) { files += 1 }
        }
        return (total, files)
    }
}
