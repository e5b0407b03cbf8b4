@testable import Caucus
import CaucusCore
import Testing

/// This user's media state (`MediaMachine`), driven directly: the helpers' switches, the
/// peer made, failed, renewed or ended, and the actions each returns. No peer, no server.
@Suite struct MediaMachineTests {
    typealias Machine = MediaMachine
    static let first = Machine.Ticket(number: 1)
    static let second = Machine.Ticket(number: 2)

    static func connected(audio: Machine.AudioState = .on) -> Machine {
        var machine = Machine()
        _ = machine.set(.audio(audio), ticket: first)
        _ = machine.peerMade(1)
        return machine
    }

    @Test func theFirstSwitchMakesThePeerOnceAndTheCallsWaitForIt() {
        var machine = Machine()
        #expect(machine.set(.audio(.on), ticket: Self.first) == [.makePeer])
        #expect(machine.set(.video(true), ticket: Self.second).isEmpty)
        #expect(machine.audio == .off)
        let made = machine.peerMade(1)
        #expect(
            made == [
                .use(1), .send([]), .deliverAudio(true), .send([.audio]), .publish([.audio], Self.first), .send([.audio, .video]),
                .publish([.audio, .video], Self.second),
            ])
        #expect(machine.peer == .up(1))
        // Later switches use the same peer.
        #expect(machine.set(.share(true), ticket: Self.first) == [.send([.audio, .video, .screenShare]), .publish([.audio, .video, .screenShare], Self.first)])
    }

    @Test func aPeerThatCannotBeMadeFailsEveryWaitingCallAndTheNextSwitchTriesAgain() {
        var machine = Machine()
        _ = machine.set(.audio(.on), ticket: Self.first)
        _ = machine.set(.video(true), ticket: Self.second)
        let failed = machine.peerFailed(.media("no DTLS certificate"))
        #expect(failed == [.fail(Self.first, .media("no DTLS certificate")), .fail(Self.second, .media("no DTLS certificate"))])
        #expect(machine.audio == .off && !machine.video)
        #expect(machine.set(.video(true), ticket: Self.first) == [.makePeer])
    }

    @Test func mutingKeepsThePeerAndStopsTheAudioGoingOut() {
        var machine = Self.connected()
        #expect(machine.set(.audio(.muted), ticket: Self.second) == [.deliverAudio(true), .send([]), .publish([], Self.second)])
        #expect(machine.set(.audio(.off), ticket: Self.second) == [.deliverAudio(false), .send([]), .publish([], Self.second)])
        #expect(machine.peer == .up(1))
    }

    @Test func aRenewalAskedForDuringAnotherRunsOnceMoreAfterIt() {
        var machine = Self.connected()
        #expect(machine.renew() == [.makeReplacement(attempt: 1, after: .zero)])
        #expect(machine.renew().isEmpty)
        #expect(machine.replacementFailed(attempt: 1) == [.makeReplacement(attempt: 2, after: .seconds(1))])
        let made = machine.replacementMade(2, attempt: 2)
        #expect(made == [.use(2), .deliverAudio(true), .send([.audio]), .close(1), .makeReplacement(attempt: 1, after: .zero)])
        #expect(machine.peer == .up(2))
        // A late report of an attempt given up is closed, not used.
        #expect(machine.replacementMade(7, attempt: 3) == [.close(7)])
        #expect(machine.replacementMade(3, attempt: 1) == [.use(3), .deliverAudio(true), .send([.audio]), .close(2)])
        #expect(machine.renewal == nil)
    }

    /// The server closes the peer a renewal replaces as soon as it answers the new offer; that
    /// end, or a late one of a peer already replaced, renews nothing. Only the peer in use,
    /// ending while nothing replaces it, is renewed.
    @Test func onlyTheLossOfThePeerInUseRenewsAndOnlyWhenNothingReplacesItAlready() {
        var machine = Self.connected()
        #expect(machine.renew() == [.makeReplacement(attempt: 1, after: .zero)])
        #expect(machine.peerLost(1).isEmpty, "closed by the server for the renewal under way")
        #expect(machine.replacementMade(2, attempt: 1) == [.use(2), .deliverAudio(true), .send([.audio]), .close(1)])
        #expect(machine.renewal == nil, "no second renewal: the loss of 1 was the renewal's own")
        #expect(machine.peerLost(1).isEmpty, "a late end of the replaced peer")
        #expect(machine.peerLost(2) == [.makeReplacement(attempt: 1, after: .zero)], "the peer in use, lost on its own")
    }

    /// A resume whose server kept the peer (and forwarded its media meanwhile) keeps it: no new
    /// offer, no new handshake. Without `mediaKept` (a restarted server, another node, a peer
    /// the server lost), or while a renewal is under way, the peer is renewed as before.
    @Test func aResumeKeepsThePeerOnlyWhenTheServerKeptIt() {
        var machine = Self.connected()
        #expect(machine.resumed(mediaKept: true).isEmpty)
        #expect(machine.peer == .up(1) && machine.renewal == nil)
        #expect(machine.resumed(mediaKept: false) == [.makeReplacement(attempt: 1, after: .zero)])
        #expect(machine.resumed(mediaKept: true).isEmpty, "coalesced into the renewal under way")
        #expect(machine.renewal?.again == true, "the renewal under way runs once more")
        var fresh = Machine()
        #expect(fresh.resumed(mediaKept: true).isEmpty && fresh.resumed(mediaKept: false).isEmpty, "no peer, nothing to keep or renew")
    }

    @Test func aRenewalGivesUpAfterThreeTriesAndKeepsTheOldPeer() {
        var machine = Self.connected()
        _ = machine.renew()
        _ = machine.replacementFailed(attempt: 1)
        _ = machine.replacementFailed(attempt: 2)
        #expect(machine.replacementFailed(attempt: 3).isEmpty)
        #expect(machine.renewal == nil)
        #expect(machine.peer == .up(1))
        // Nothing to renew before the first peer.
        var fresh = Machine()
        #expect(fresh.renew().isEmpty)
    }

    @Test func theSessionsEndClosesThePeerAndRefusesWhatComesAfter() {
        var machine = Self.connected()
        _ = machine.set(.video(true), ticket: Self.second)
        #expect(machine.sessionEnded() == [.send([]), .detach, .close(1)])
        #expect(machine.audio == .off && !machine.video && machine.sending == [])
        #expect(machine.set(.audio(.on), ticket: Self.first) == [.fail(Self.first, .notJoined)])
        #expect(machine.renew().isEmpty)
    }

    @Test func aPeerMadeAfterTheSessionEndedIsClosed() {
        var machine = Machine()
        _ = machine.set(.audio(.on), ticket: Self.first)
        #expect(machine.sessionEnded() == [.send([]), .detach, .cancelMaking, .fail(Self.first, .notJoined)])
        #expect(machine.peerMade(4) == [.close(4)])
        #expect(machine.peer == .ended)
    }
    /// A session object that left and joined again: its media starts afresh (it stayed ended:
    /// every helper call threw `notJoined` while connected), and nothing of the earlier join (its
    /// end or resume heard late, a peer it was making) touches the new one.
    @Test func aNewJoinStartsMediaAfreshAndTheEarlierJoinsLateNewsChangesNothing() {
        var machine = Machine()
        #expect(machine.set(.audio(.on), ticket: Self.first, session: 1) == [.makePeer])
        _ = machine.peerMade(1, session: 1)
        _ = machine.set(.video(true), ticket: Self.second, session: 1)
        #expect(machine.sessionEnded(session: 1) == [.send([]), .detach, .close(1)])
        #expect(machine.set(.audio(.on), ticket: Self.first, session: 1) == [.fail(Self.first, .notJoined)])

        #expect(machine.set(.audio(.on), ticket: Self.first, session: 2) == [.makePeer])
        #expect(machine.session == 2 && !machine.video)
        #expect(machine.sessionEnded(session: 1).isEmpty, "the first join's end, heard again")
        #expect(machine.peerMade(7, session: 1) == [.close(7)], "a peer made for the first join")
        #expect(machine.peerMade(2, session: 2) == [.use(2), .send([]), .deliverAudio(true), .send([.audio]), .publish([.audio], Self.first)])
        #expect(machine.renew(session: 1).isEmpty, "the first join's resume")
        #expect(machine.renew(session: 2) == [.makeReplacement(attempt: 1, after: .zero)])
        #expect(machine.replacementMade(8, attempt: 1, session: 1) == [.close(8)])
        #expect(machine.replacementMade(3, attempt: 1, session: 2) == [.use(3), .deliverAudio(true), .send([.audio]), .close(2)])
        #expect(machine.sessionEnded(session: 2) == [.send([]), .detach, .close(3)])
    }

    /// The new join's first call can come before the earlier join's end is heard: what that
    /// join left (its peer, a peer it was making and the calls waiting for it) is closed then.
    @Test func aNewJoinHeardBeforeTheEarlierOnesEndClosesWhatItLeft() {
        var machine = Self.connected()
        #expect(machine.set(.video(true), ticket: Self.second, session: 1) == [.send([]), .detach, .close(1), .makePeer])
        #expect(machine.sessionEnded(session: 0).isEmpty)
        #expect(machine.peer == .making(waiting: [Machine.Waiting(change: .video(true), ticket: Self.second)]))

        var making = Machine()
        _ = making.set(.audio(.on), ticket: Self.first, session: 1)
        #expect(making.set(.audio(.on), ticket: Self.second, session: 2) == [.send([]), .detach, .cancelMaking, .fail(Self.first, .notJoined), .makePeer])
        #expect(making.peerFailed(.media("late"), session: 1).isEmpty)
        #expect(making.peer == .making(waiting: [Machine.Waiting(change: .audio(.on), ticket: Self.second)]))
    }
}
