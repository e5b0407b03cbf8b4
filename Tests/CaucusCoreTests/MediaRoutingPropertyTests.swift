import CaucusCore
import Foundation
import PropertyBased
import NIOConcurrencyHelpers
import Testing

/// Who receives what, over random sessions: the random walk of `SessionProperties`, with media
/// steps mixed in (publishing, rooms whose definitions forbid kinds, muting and pausing the
/// main session, dropped and resumed connections, broadcast voice, listen-in and the losses of
/// role that end them). After every step, for every present user,
/// `mediaSources(for:)` is checked rule by rule against the state, and must also hold every
/// publication no rule forbids. Over all the walks, each rule must have held something back.
@Suite struct MediaRoutingProperties {
    @Test(.shrinking(false))
    func everySubscriberReceivesExactlyItsLocationsAllowedPublications() async {
        let total = NIOLockedValueBox(Coverage())
        await propertyCheck(count: 20, input: SessionProperties.steps) { steps in
            var walk = SessionProperties.Walk()
            var coverage = Coverage()
            for (index, raw) in steps.enumerated() {
                let step: SessionProperties.Step = raw
                if step.kind % 3 == 0 {
                    Self.takeMediaStep(step, in: &walk, entropy: UInt64(index))
                } else {
                    walk.take(step, entropy: UInt64(index))
                }
                if walk.failed { return }
                var problems = Self.violations(in: walk.state, coverage: &coverage)
                problems += Self.keptMediaViolations(in: walk.state, keeping: step.a, coverage: &coverage)
                if index % 50 == 49 { problems += Self.impurities(of: walk) }
                if !problems.isEmpty {
                    Issue.record(Comment(rawValue: "step \(index): " + problems.prefix(3).joined(separator: "\n")))
                    return
                }
            }
            total.withLockedValue { $0.add(coverage) }
        }
        // Walks that never meet a rule prove nothing of it.
        let coverage = total.withLockedValue { $0 }
        #expect(coverage.received > 0, "nothing was ever forwarded")
        #expect(coverage.inRooms > 0, "nothing was ever forwarded in a room")
        #expect(coverage.withheldByRoom > 0, "no room ever forbade a kind someone published")
        #expect(coverage.withheldByMute > 0, "a muted main session never held anything back")
        #expect(coverage.withheldByPause > 0, "a paused main session never held anything back")
        #expect(coverage.withheldFromReconnecting > 0, "no reconnecting user ever published")
        #expect(coverage.broadcastHeard > 0, "no voice broadcast was ever heard")
        #expect(coverage.broadcastAcrossRules > 0, "no voice broadcast ever crossed a location, mute, pause or room rule")
        #expect(coverage.listenedIn > 0, "no listener ever received a room")
        #expect(coverage.keptReconnecting > 0, "no reconnecting user with its media kept ever received or was received")
    }

    /// A reconnecting user whose media is kept counts as connected, and only it: everyone
    /// receives, with `mediaKept` naming some reconnecting users (those whose id and `pick`
    /// have the same parity), exactly what they would with those users resumed.
    static func keptMediaViolations(in state: SessionState, keeping pick: Int, coverage: inout Coverage) -> [String] {
        let kept = Set(state.users.values.filter { !$0.presence.isConnected && Int($0.id.rawValue) % 2 == pick % 2 }.map(\.id))
        guard !kept.isEmpty else { return [] }
        var resumed = state
        for user in kept { resumed.apply(.userResumed(user)) }
        var problems: [String] = []
        for subscriber in state.users.keys {
            let received = state.mediaSources(for: subscriber, mediaKept: { kept.contains($0) })
            let expected = resumed.mediaSources(for: subscriber)
            if received != expected { problems.append("\(subscriber) with \(kept) kept receives \(received), not \(expected)") }
            if received.contains(where: { kept.contains($0.publisher) }) || (kept.contains(subscriber) && !received.isEmpty) {
                coverage.keptReconnecting += 1
            }
        }
        return problems
    }

    struct Coverage: Sendable {
        mutating func add(_ other: Coverage) {
            received += other.received
            inRooms += other.inRooms
            withheldByRoom += other.withheldByRoom
            withheldByMute += other.withheldByMute
            withheldByPause += other.withheldByPause
            withheldFromReconnecting += other.withheldFromReconnecting
            broadcastHeard += other.broadcastHeard
            broadcastAcrossRules += other.broadcastAcrossRules
            listenedIn += other.listenedIn
            keptReconnecting += other.keptReconnecting
        }

        var received = 0
        var inRooms = 0
        var withheldByRoom = 0
        var withheldByMute = 0
        var withheldByPause = 0
        var withheldFromReconnecting = 0
        var broadcastHeard = 0
        /// Heard where no other source of the broadcaster's would be: another location, or a
        /// muted, paused or audio-less one.
        var broadcastAcrossRules = 0
        var listenedIn = 0
        var keptReconnecting = 0
    }

    /// A media-minded command, performed like the walk's own (refusals must change nothing).
    static func takeMediaStep(_ step: SessionProperties.Step, in walk: inout SessionProperties.Walk, entropy: UInt64) {
        guard walk.state.isLive, let host = walk.state.hostID else { return walk.take(step, entropy: entropy) }
        let (a, b) = (step.a, step.b)
        let users = Array(walk.state.users.keys)
        let someone = users[a % users.count]
        // The host, a manager, or (now and then, to be refused) anyone.
        let managing = walk.state.users.values.filter { walk.state.role(of: $0).isManaging }.map(\.id)
        let manager = a % 7 == 6 ? someone : managing[b % managing.count]
        let (command, principal): (Command, Principal)
        // `kind` is a multiple of 3 here.
        switch (step.kind / 3) % 13 {
        case 9:
            (command, principal) = (b % 3 == 0 ? .stopVoiceBroadcast : .startVoiceBroadcast, .user(manager))
        case 10:
            (command, principal) = (.listenIn(walk.room(a)), .user(manager))
        case 11:
            (command, principal) = (b % 2 == 0 ? .stopListening : .joinRoom(walk.room(a)), .user(manager))
        case 12:
            // Roles change under a broadcaster or a listener.
            if walk.state.role(of: manager) == .manager {
                (command, principal) = (.revokeManager(manager), .user(host))
            } else {
                (command, principal) = (a % 2 == 0 ? .makeManager(someone) : .transferHost(to: someone), .user(host))
            }
        case 8:
            (command, principal) = (.assign([someone], to: walk.room(b)), .user(host))
        case 0, 1, 2:
            (command, principal) = (.publish(MediaKinds(rawValue: UInt8(b % 8))), .user(someone))
        case 3:
            let definition = RoomDefinition(audio: a % 2 == 0, video: a % 3 != 0, screenShare: b % 2 == 0)
            (command, principal) = (.createAndInvite(definition, count: 1 + b % 2, forceJoin: true), .user(host))
        case 4:
            (command, principal) = (a % 2 == 0 ? .muteParent(audio: b % 2 == 0, video: b % 3 != 0) : .unmuteParent(audio: true, video: true), .user(host))
        case 5:
            (command, principal) = (a % 2 == 0 ? .pauseParent : .resumeParent, .user(host))
        case 6:
            (command, principal) = (a % 3 == 0 ? .resume(someone) : .connectionLost(someone), .server)
        default:
            (command, principal) = (.joinRoom(walk.room(b)), .user(someone))
        }
        let before = walk.state
        walk.commands += 1
        do {
            let events = try walk.state.decide(command, by: principal, at: walk.now, entropy: entropy)
            for event in events { walk.state.apply(event) }
            walk.log += events
            walk.accepted += 1
        } catch {
            walk.report(walk.state == before ? [] : ["a refused \(command) changed the state"])
        }
        walk.report(walk.invariantViolations(after: command, by: principal))
    }

    /// Every rule of `SessionState+MediaSources.swift`, checked on its own.
    static func violations(in state: SessionState, coverage: inout Coverage) -> [String] {
        var problems = roleViolations(in: state)
        // The broadcaster's audio, when it is to be heard at all.
        let voice: MediaSource? = state.voiceBroadcaster.flatMap { id in
            guard let user = state.users[id], user.presence.isConnected, user.publishing.contains(.audio) else { return nil }
            return MediaSource(publisher: id, kind: .audio)
        }
        for subscriber in state.users.values {
            let received = state.mediaSources(for: subscriber.id)
            let receivedSet = Set(received)
            // A listener receives its room instead of its own location.
            let origin = state.listeners[subscriber.id].map(Location.room) ?? subscriber.location
            let me = "\(subscriber.id) in \(subscriber.location) receiving \(origin)"
            if received.count != receivedSet.count { problems.append("\(me) receives a source twice: \(received)") }
            if !subscriber.presence.isConnected && !received.isEmpty { problems.append("reconnecting \(me) receives \(received)") }
            if let voice, subscriber.presence.isConnected, voice.publisher != subscriber.id {
                if received.first != voice { problems.append("\(me) does not hear the voice broadcast first: \(received)") }
                coverage.broadcastHeard += 1
                if let broadcaster = state.users[voice.publisher], broadcaster.location != origin || !forwards(state, voice, in: origin) {
                    coverage.broadcastAcrossRules += 1
                }
            }
            if origin != subscriber.location && !received.isEmpty { coverage.listenedIn += 1 }
            for source in received where source != voice {
                guard let publisher = state.users[source.publisher] else {
                    problems.append("\(me) receives \(source) from someone not present")
                    continue
                }
                let what = "\(me) receives \(source.kind) of \(publisher.id) in \(publisher.location)"
                if publisher.id == subscriber.id { problems.append("\(what): its own") }
                if publisher.location != origin { problems.append("\(what): across locations") }
                if !publisher.presence.isConnected { problems.append("\(what): a reconnecting publisher") }
                if !publisher.publishing.contains(source.kind) { problems.append("\(what): it does not publish that") }
                switch origin {
                case .main:
                    if state.parent.audioMuted && source.kind == .audio { problems.append("\(what): the main session's audio is muted") }
                    if state.parent.videoMuted && source.kind == .video { problems.append("\(what): the main session's video is muted") }
                    if state.parent.paused && state.role(of: publisher) == .participant {
                        problems.append("\(what): a participant in a paused main session")
                    }
                case .room(let id):
                    if let definition = state.room(id)?.definition, !allows(definition, source.kind) {
                        problems.append("\(what): the room forbids it")
                    }
                }
            }
            // Everything no rule forbids is received.
            guard subscriber.presence.isConnected else { continue }
            for publisher in state.users.values where publisher.id != subscriber.id && publisher.location == origin {
                for kind in publisher.publishing.kinds {
                    let source = MediaSource(publisher: publisher.id, kind: kind)
                    if !publisher.presence.isConnected {
                        coverage.withheldFromReconnecting += 1
                        continue
                    }
                    switch origin {
                    case .main:
                        if (state.parent.audioMuted && kind == .audio) || (state.parent.videoMuted && kind == .video) {
                            coverage.withheldByMute += 1
                            continue
                        }
                        if state.parent.paused && state.role(of: publisher) == .participant {
                            coverage.withheldByPause += 1
                            continue
                        }
                    case .room(let id):
                        if let definition = state.room(id)?.definition, !allows(definition, kind) {
                            coverage.withheldByRoom += 1
                            continue
                        }
                        coverage.inRooms += 1
                    }
                    coverage.received += 1
                    if !receivedSet.contains(source) { problems.append("\(me) misses \(kind) of \(publisher.id), which no rule forbids") }
                }
            }
        }
        return problems
    }

    /// Who receives what depends on the state alone: the state its log rebuilds, and the state
    /// its stored form decodes to, route exactly alike.
    static func impurities(of walk: SessionProperties.Walk) -> [String] {
        guard walk.state.isLive else { return [] }
        let replayed = SessionState(limits: SessionProperties.limits, replaying: walk.log)
        guard let stored = try? JSONEncoder().encode(walk.state), let decoded = try? JSONDecoder().decode(SessionState.self, from: stored) else {
            return ["the state does not survive its stored form"]
        }
        var problems: [String] = []
        for id in walk.state.users.keys {
            let sources = walk.state.mediaSources(for: id)
            if replayed.mediaSources(for: id) != sources { problems.append("\(id): the replayed log routes differently") }
            if decoded.mediaSources(for: id) != sources { problems.append("\(id): the stored state routes differently") }
        }
        return problems
    }

    /// A broadcast or a listen-in that should have ended by now: each must still be allowed.
    static func roleViolations(in state: SessionState) -> [String] {
        var problems: [String] = []
        if let id = state.voiceBroadcaster, state.role(of: id)?.isManaging != true {
            problems.append("\(id) broadcasts its voice without being present as the host or a manager")
        }
        for (id, room) in state.listeners {
            guard let listener = state.users[id], state.role(of: listener).isManaging else {
                problems.append("\(id) listens in to \(room) without being present as the host or a manager")
                continue
            }
            if !state.isStarted || state.room(room) == nil { problems.append("\(id) listens in to \(room), which is not open") }
            if listener.location == .room(room) { problems.append("\(id) listens in to \(room), where it is") }
        }
        return problems
    }

    /// Whether `location`'s own rules would forward `source` there.
    static func forwards(_ state: SessionState, _ source: MediaSource, in location: Location) -> Bool {
        switch location {
        case .main:
            if state.parent.audioMuted && source.kind == .audio { return false }
            return !(state.parent.paused && state.role(of: source.publisher) == .participant)
        case .room(let id):
            return state.room(id).map { allows($0.definition, source.kind) } ?? false
        }
    }

    static func allows(_ definition: RoomDefinition, _ kind: MediaKind) -> Bool {
        switch kind {
        case .audio: definition.audio
        case .video: definition.video
        case .screenShare: definition.screenShare
        }
    }
}
