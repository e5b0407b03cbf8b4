@testable import Caucus
import CaucusCore
import Testing

/// `MediaMachine` muted by a host or manager (`mutedByOther`): what was on goes off and stays
/// off, so the next switch publishes without it; only the user's own switch brings it back.
@Suite struct MediaMachineMuteTests {
    typealias Machine = MediaMachine
    static let ticket = Machine.Ticket(number: 1)

    static func publishingEverything() -> Machine {
        var machine = Machine()
        _ = machine.set(.audio(.on), ticket: ticket)
        _ = machine.peerMade(1)
        _ = machine.set(.video(true), ticket: ticket)
        _ = machine.set(.share(true), ticket: ticket)
        return machine
    }

    @Test func mutedAudioStopsGoingOutAndTheNextSwitchDoesNotPublishIt() {
        var machine = Self.publishingEverything()
        #expect(machine.mutedByOther(.audio) == [.send([.video, .screenShare])])
        #expect(machine.audio == .muted)
        // Turning the camera off and on publishes what is on: not the microphone.
        #expect(machine.set(.video(false), ticket: Self.ticket) == [.send([.screenShare]), .publish([.screenShare], Self.ticket)])
        #expect(machine.set(.video(true), ticket: Self.ticket).last == .publish([.video, .screenShare], Self.ticket))
        // The user unmutes itself.
        #expect(machine.set(.audio(.on), ticket: Self.ticket).last == .publish(.all, Self.ticket))
    }

    @Test func videoAndShareMutedTogether() {
        var machine = Self.publishingEverything()
        #expect(machine.mutedByOther([.video, .screenShare]) == [.send([.audio])])
        #expect(!machine.video && !machine.share && machine.audio == .on)
    }

    @Test func audioLeftOffStaysOffAndAnEndedSessionIgnoresIt() {
        var machine = Machine()
        #expect(machine.mutedByOther(.audio) == [.send([])])
        #expect(machine.audio == .off)
        var ended = Self.publishingEverything()
        _ = ended.sessionEnded()
        #expect(ended.mutedByOther(.audio).isEmpty)
    }
}
