import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One reading of the server's `/metrics` (Prometheus text), as a bench compares two of them.
struct ServerMetricsScrape {
    /// Each sample's value by its series, labels as written (`name{le="0.01"}`).
    let samples: [String: Double]

    static func read(_ server: ServerUnderTest) async throws -> ServerMetricsScrape {
        guard let url = URL(string: "http://\(server.host):\(server.port)/metrics") else { throw BenchError("no metrics address") }
        let (data, _) = try await URLSession.shared.data(from: url)
        var samples: [String: Double] = [:]
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else { continue }
            samples[String(line[..<space])] = value
        }
        return ServerMetricsScrape(samples: samples)
    }

    /// A series' value; 0 when the server has not made it yet.
    func value(_ series: String) -> Double { samples[series] ?? 0 }

    /// A histogram's observations since `earlier`: how many, their sum, and the smallest bucket
    /// bound that holds them all (nil when none, or when one is above every finite bound: the
    /// `+Inf` bucket holds everything and says nothing).
    func histogram(_ name: String, since earlier: ServerMetricsScrape) -> (count: Int, sum: Double, largestAtMost: Double?) {
        let count = Int(value(name + "_count") - earlier.value(name + "_count"))
        let sum = value(name + "_sum") - earlier.value(name + "_sum")
        let bounds = samples.keys.compactMap { series -> (bound: Double, count: Double)? in
            let prefix = name + "_bucket{le=\""
            guard series.hasPrefix(prefix), series.hasSuffix("\"}"),
                let bound = Double(series.dropFirst(prefix.count).dropLast(2))
            else { return nil }
            return (bound, value(series) - earlier.value(series))
        }
        let largest = bounds.sorted { $0.bound < $1.bound }.first { $0.bound.isFinite && Int($0.count) == count }?.bound
        return (count, sum, count == 0 ? nil : largest)
    }

    /// A histogram's observations since `earlier` above `bound` (one of its bucket bounds).
    func histogram(_ name: String, since earlier: ServerMetricsScrape, above bound: Double) -> Int {
        let bucket = name + "_bucket{le=\"\(bound)\"}"
        let count = value(name + "_count") - earlier.value(name + "_count")
        return Int(count - (value(bucket) - earlier.value(bucket)))
    }

    /// Waits until `histogram` has had no new observation for `quiet` (read every 50 ms), or
    /// `limit` has passed; returns how long it waited, and whether it was quiet.
    static func waitForQuiet(
        _ histogram: String, on server: ServerUnderTest, quiet: Duration = .milliseconds(300), limit: Duration = .seconds(30)
    ) async throws -> (waited: Duration, quiet: Bool) {
        let clock = ContinuousClock()
        let started = clock.now
        var count = try await read(server).value(histogram + "_count")
        var changed = started
        while clock.now - changed < quiet, clock.now - started < limit {
            try await Task.sleep(for: .milliseconds(50))
            let now = try await read(server).value(histogram + "_count")
            if now != count { (count, changed) = (now, clock.now) }
        }
        return (clock.now - started, clock.now - changed >= quiet)
    }
}
