import Testing

/// What an app that imports only `Caucus` can name: the session, its helpers, events and
/// snapshot and the values they speak in — and not the engine (the core's state machine and
/// the wire types), nor generic names that would clash with an app's own.
@Suite struct PublicSurfaceTests {
    static let engine = [
        "SessionState", "Command", "Event", "Audience", "SplitMix64", "SequencedEvent", "SessionSnapshot", "JoinRequest",
        "Principal", "Role", "Location", "Instant", "Identifier", "RequestFields", "ServerFrame", "ClientFrame", "WireEvent",
        // Times reach an app as `Date` and `Duration`: the core's instant is not exported under any name.
        "CaucusInstant",
    ]

    @Test(arguments: engine)
    func anEngineNameIsNotReachable(_ name: String) async throws {
        let result = try await Typecheck.run("import Caucus\n\nlet type: Any.Type = \(name).self\n")
        #expect(!result.succeeded, "an app can name \(name)")
        #expect(result.output.contains("cannot find '\(name)' in scope"), "\(result.output)")
    }

    @Test func theValuesAnAppMeetsAreReachableByName() async throws {
        let result = try await Typecheck.run("""
            import Caucus

            let types: [Any.Type] = [
                CaucusSession.self, CaucusSession.Configuration.self, SessionEvent.self, SessionError.self, CaucusUser.self,
                SubsessionKit.self, UserID.self, RoomID.self, HelpRequestID.self, MessageID.self, CaucusRole.self,
                CaucusLocation.self, CaucusError.self, SessionMode.self, SessionSettings.self, SessionLimits.self,
                RoomDefinition.self, PlannedRoom.self, StartOptions.self, SubsessionStatus.self, ParentControl.self,
                BreakoutTimer.self, HelpRequest.self, HelpResult.self, ChatMessage.self, LeaveReason.self, UserMove.self,
                MediaKind.self, MediaKinds.self, ConnectionState.self, SessionLeftReason.self, SettingsChange.self,
            ]

            """)
        #expect(result.succeeded, "\(result.output)")
    }

    /// What an app displays is a `Date` or a `Duration`, and events compare with `==`.
    @Test func timesAreDatesAndDurationsAndEventsAreEquatable() async throws {
        let result = try await Typecheck.run("""
            import Caucus
            import Foundation

            func show(_ user: CaucusUser, _ timer: BreakoutTimer, _ message: ChatMessage, _ snapshot: CaucusSession.Snapshot) {
                let joined: Date = user.joinedAt
                let ends: Date = timer.endsAt
                let warnings: [Duration] = timer.pendingWarnings
                let left: Duration = timer.remaining()
                let sent: Date = message.sentAt
                let stops: Date? = snapshot.stopsAt
                let countdown: Duration = snapshot.settings.countdown
                let warned: [Duration] = snapshot.settings.timerWarnings
                print(joined, ends, warnings, left, sent, stops as Any, countdown, warned)
            }

            func warning(_ event: SessionEvent) -> Duration? {
                if case .timerWarning(let remaining) = event { return remaining }
                return nil
            }

            func same(_ one: SessionEvent, _ other: SessionEvent) -> Bool { one == other }

            """)
        #expect(result.succeeded, "\(result.output)")
    }
}
