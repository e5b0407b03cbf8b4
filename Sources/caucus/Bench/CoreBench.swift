import ArgumentParser
import CaucusCore

struct CoreBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "core",
        abstract: "decide+apply throughput of the pure session engine on a breakout workload, on one core.")

    @Option(help: "Users per session (besides the host).") var users = 999
    @Option(help: "Subsessions per session.") var rooms = 50
    @Option(help: "Chat messages per user per round.") var messages = 5
    @Option(help: "Rounds per run.") var rounds = 20
    @Option(help: "Runs; the median is reported.") var runs = 5
    @Flag(help: "Print JSON instead of a table.") var json = false

    func run() throws {
        let workload = BreakoutWorkload(users: users, rooms: rooms, messagesPerUser: messages)
        var rates: [Double] = []
        var operations = 0
        for _ in 0..<runs {
            let clock = ContinuousClock()
            var count = 0
            let elapsed = try clock.measure {
                for round in 0..<rounds { count += try workload.play(seed: UInt64(round)) }
            }
            operations = count
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            rates.append(Double(count) / seconds)
        }
        rates.sort()
        let median = rates[rates.count / 2]
        let figures: [(key: String, label: String, value: Int)] = [
            ("operationsPerRun", "operations per run", operations), ("runs", "runs", runs),
            ("medianOpsPerSecond", "median ops/s", Int(median)), ("minOpsPerSecond", "min ops/s", Int(rates[0])),
            ("maxOpsPerSecond", "max ops/s", Int(rates[rates.count - 1])),
        ]
        if json {
            print(#"{"scenario": "core", "# + figures.map { #""\#($0.key)": \#($0.value)"# }.joined(separator: ", ") + "}")
        } else {
            let width = figures.map(\.label.count).max() ?? 0
            print("scenario core")
            for figure in figures {
                print(figure.label + String(repeating: " ", count: width - figure.label.count + 2) + "\(figure.value)")
            }
        }
    }
}
