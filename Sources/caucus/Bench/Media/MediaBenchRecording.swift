import CaucusRecording
import Foundation

/// `caucus bench media --record`: the cost of recording every room, in the same run as the
/// forwarding it rides on. After the forwarding window without recording, `rounds` times (3 by
/// default, `--record-rounds`):
/// the host records every room; once the files have started (each video at its keyframe), a
/// window with recording; then recording stopped and a window without. Each window with
/// recording is set against the mean of the two without around it, so the VM's drift within
/// a run cancels; the figure is the median of the rounds' ratios.
struct MediaBenchRecording {
    /// The windows without recording (the first is the forwarding window before), and with.
    let without: [MediaBenchSteps.Window]
    let with: [MediaBenchSteps.Window]
    /// Bytes the recordings grew by during the windows with recording, and their length.
    let bytes: Int64
    let seconds: Double
    let files: Int

    static func measure(
        host: BenchUser, folder: String, steps: MediaBenchSteps, before: MediaBenchSteps.Window, rounds: Int, cpu: () -> Double?
    ) async throws -> MediaBenchRecording {
        let root = folder + "/recordings"
        var (without, with) = ([before], [MediaBenchSteps.Window]())
        var (bytes, seconds) = (Int64(0), 0.0)
        for _ in 0..<rounds {
            try await host.request("startRecording", #""all":true"#)
            // Every file started (video waits for the keyframe it asked for) before the window.
            try await Task.sleep(for: .seconds(2))
            let grownFrom = Self.bytes(under: root).bytes
            let started = ContinuousClock.now
            with.append(try await steps.measure(cpu: cpu))
            seconds += (ContinuousClock.now - started).milliseconds / 1_000
            bytes += Self.bytes(under: root).bytes - grownFrom
            try await host.request("stopRecording", #""all":true"#)
            try await Task.sleep(for: .seconds(1))
            without.append(try await steps.measure(cpu: cpu))
        }
        return MediaBenchRecording(without: without, with: with, bytes: bytes, seconds: seconds, files: Self.bytes(under: root).files / max(rounds, 1))
    }

    /// Per round, CPU per forwarded packet with recording over the mean of the windows without
    /// before and after it.
    var ratios: [Double] {
        with.indices.map { with[$0].cpuPerPacket / ((without[$0].cpuPerPacket + without[$0 + 1].cpuPerPacket) / 2) }
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
