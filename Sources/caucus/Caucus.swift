import ArgumentParser

@main
struct CaucusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "caucus",
        abstract: "Caucus: sessions with subsessions (breakout rooms).",
        subcommands: [Serve.self, Bench.self]
    )
}

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Run the session server (not yet available).")

    func run() async throws {
        print("caucus serve: not yet. The session engine is in place; the server that speaks the WebSocket protocol is the next step.")
        throw ExitCode(2)
    }
}

struct Bench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Measure Caucus under load.", subcommands: [CoreBench.self])
}
