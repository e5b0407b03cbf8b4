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
        if json {
            print(#"{"scenario":"core","operationsPerRun":\#(operations),"runs":\#(runs),"medianOpsPerSecond":\#(Int(median)),"minOpsPerSecond":\#(Int(rates.first!)),"maxOpsPerSecond":\#(Int(rates.last!))}"#)
        } else {
            print("scenario  ops/run    runs  median ops/s  min ops/s  max ops/s")
            print("core      \(operations)  \(runs)     \(Int(median))      \(Int(rates.first!))    \(Int(rates.last!))")
        }
    }
}
