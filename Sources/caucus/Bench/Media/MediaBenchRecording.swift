import Foundation

/// `caucus bench media --record`: the cost of recording every room, in the same run as the
/// forwarding it rides on. After the forwarding window without recording, the host records
/// every room; once the files have started (each video at its keyframe), a window with
/// recording, then recording stopped and a window without again. The ratio is the window with
/// recording against the mean of the two around it, so the VM's drift within a run cancels.
struct MediaBenchRecording {
    let withRecording: MediaBenchSteps.Window
    let after: MediaBenchSteps.Window
    /// Bytes the recordings grew by during the window with recording, and its length.
    let bytes: Int64
    let seconds: Double
    let files: Int

    static func measure(host: BenchUser, folder: String, steps: MediaBenchSteps, cpu: () -> Double?) async throws -> MediaBenchRecording {
        try await host.request("startRecording", #""all":true"#)
        // Every file started (video waits for the keyframe it asked for) before the window.
        try await Task.sleep(for: .seconds(2))
        let root = folder + "/recordings"
        let before = Self.bytes(under: root)
        let started = ContinuousClock.now
        let window = try await steps.measure(cpu: cpu)
        let elapsed = (ContinuousClock.now - started).milliseconds / 1_000
        let grown = Self.bytes(under: root).bytes - before.bytes
        try await host.request("stopRecording", #""all":true"#)
        try await Task.sleep(for: .seconds(1))
        let after = try await steps.measure(cpu: cpu)
        return MediaBenchRecording(withRecording: window, after: after, bytes: grown, seconds: elapsed, files: Self.bytes(under: root).files)
    }

    /// CPU per forwarded packet with recording, over the mean of the windows before and after.
    func ratio(before: MediaBenchSteps.Window) -> Double {
        withRecording.cpuPerPacket / ((before.cpuPerPacket + after.cpuPerPacket) / 2)
    }

    func report(before: MediaBenchSteps.Window, rooms: Int, into report: inout Report) {
        report.add("recording every room: forwarded", "\(Int(withRecording.perSecond)) packets/s")
        report.add("recording every room: CPU per forwarded packet", (withRecording.cpuPerPacket * 1e6).formatted(decimals: 2) + " µs")
        report.add("not recording again: CPU per forwarded packet", (after.cpuPerPacket * 1e6).formatted(decimals: 2) + " µs")
        report.add("CPU per packet, recording / not (mean of before and after)", ratio(before: before).formatted(decimals: 3) + "×")
        let perRoomMinute = Double(bytes) / seconds * 60 / Double(max(rooms, 1))
        report.add("disk written per room per minute", (perRoomMinute / 1_048_576).formatted(decimals: 2) + " MiB")
        report.add("recorded files", "\(files)")
    }

    /// The bytes and the WebM files under `root`.
    static func bytes(under root: String) -> (bytes: Int64, files: Int) {
        guard let walker = FileManager.default.enumerator(atPath: root) else { return (0, 0) }
        var total: Int64 = 0
        var files = 0
        for case let path as String in walker {
            let attributes = try? FileManager.default.attributesOfItem(atPath: root + "/" + path)
            guard attributes?[.type] as? FileAttributeType == .typeRegular else { continue }
            total += (attributes?[.size] as? NSNumber)?.int64Value ?? 0
            if path.hasSuffix(".webm") { files += 1 }
        }
        return (total, files)
    }
}
