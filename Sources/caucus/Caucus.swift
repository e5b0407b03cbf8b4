import ArgumentParser

@main
struct CaucusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "caucus",
        abstract: "Caucus: sessions with subsessions (breakout rooms).",
        subcommands: [Serve.self, TokenCommand.self, LinkCommand.self, ClientCommand.self, RecordingCommand.self, Bench.self]
    )
}

struct Bench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Measure Caucus under load.",
        subcommands: [CoreBench.self, EncodeBench.self, IdleBench.self, JoinStormBench.self, ClassroomBench.self, ChatBench.self, BroadcastBench.self, ReconnectBench.self, TakeoverBench.self, LeaseBench.self, MediaBench.self, MediaClientsBench.self, MediaRelayCommand.self])
}
