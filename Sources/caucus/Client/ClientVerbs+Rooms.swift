import Caucus

/// Commands for being in rooms, and the create-and-invite flow.
extension ClientShell {
    static let roomVerbs: [Verb] = [
        Verb(usage: "join ROOM", summary: "go to an open subsession") { shell, a in
            let room = try shell.room(&a)
            try a.end()
            try await room.join()
        },
        Verb(usage: "back", summary: "return to the main session") { shell, a in
            try a.end()
            try await shell.participant.returnToMain()
        },
        Verb(usage: "help-request", summary: "in a subsession: ask the host and managers for help") { shell, a in
            try a.end()
            try await shell.participant.requestHelp()
        },
        Verb(usage: "create N [CAPACITY]", summary: "create N rooms, open at once, of CAPACITY participants each") { shell, a in
            let count = try a.integer("N")
            let capacity = try a.optionalInteger("CAPACITY")
            try a.end()
            try await shell.session.breakoutRooms.create(RoomDefinition(capacity: capacity), count: count)
        },
        Verb(usage: "create-invite N", summary: "create N rooms and invite the main session's participants over them") { shell, a in
            let count = try a.integer("N")
            try a.end()
            try await shell.session.breakoutRooms.createAndInvite(count: count)
        },
        Verb(usage: "invite USER ROOM [force]", summary: "invite USER to ROOM; `force` moves them without asking") { shell, a in
            let user = try shell.user(&a)
            let room = try shell.room(&a)
            let force = a.flag("force")
            try a.end()
            try await shell.session.breakoutRooms.invite([user.id], to: room.id, forceJoin: force)
        },
        Verb(usage: "accept ROOM", summary: "accept your invitation to ROOM") { shell, a in
            let room = try shell.room(&a)
            try a.end()
            try await shell.session.breakoutRooms.accept(room.id)
        },
        Verb(usage: "reject ROOM", summary: "decline your invitation to ROOM") { shell, a in
            let room = try shell.room(&a)
            try a.end()
            try await shell.session.breakoutRooms.reject(room.id)
        },
        Verb(usage: "pause", summary: "pause the main session while subsessions run") { shell, a in
            try a.end()
            try await shell.session.breakoutRooms.pauseParent()
        },
        Verb(usage: "resume", summary: "resume the main session") { shell, a in
            try a.end()
            try await shell.session.breakoutRooms.resumeParent()
        },
        Verb(usage: "mute [audio|video]", summary: "mute the main session's audio and video, or one of them") { shell, a in
            let (audio, video) = try media(&a)
            try await shell.session.breakoutRooms.muteParent(audio: audio, video: video)
        },
        Verb(usage: "unmute [audio|video]", summary: "unmute the main session's audio and video, or one of them") { shell, a in
            let (audio, video) = try media(&a)
            try await shell.session.breakoutRooms.unmuteParent(audio: audio, video: video)
        },
        Verb(usage: "mute-user USER [video]", summary: "mute USER's microphone, or stop their camera (only they turn it on again)") {
            shell, a in
            let user = try shell.user(&a)
            let which = a.optionalWord()?.lowercased()
            try a.end()
            switch which {
            case nil, "audio": try await shell.session.audioHelper.mute(user: user.id)
            case "video": try await shell.session.videoHelper.mute(user: user.id)
            case let other?: throw ClientError.usage("audio or video, not \"\(other)\": \(a.usage)")
            }
        },
        Verb(usage: "voice on|off", summary: "speak to every room at once (broadcast voice), or stop") { shell, a in
            let which = a.optionalWord()?.lowercased()
            try a.end()
            switch which {
            case "on": try await shell.manager.startVoiceBroadcast()
            case "off": try await shell.manager.stopVoiceBroadcast()
            default: throw ClientError.usage("say `voice on` or `voice off`")
            }
        },
        Verb(usage: "listen ROOM", summary: "hear and see ROOM without joining it (the room is told)") { shell, a in
            let room = try shell.room(&a)
            try a.end()
            try await shell.manager.listenIn(to: room.id)
        },
        Verb(usage: "unlisten", summary: "stop listening in") { shell, a in
            try a.end()
            try await shell.manager.stopListening()
        },
        Verb(usage: "record all|main|ROOM", summary: "record every room (rooms created later too), the main session, or ROOM; everyone there is told") {
            shell, a in
            let locations = try recordingLocations(shell, &a)
            if let locations { try await shell.manager.startRecording(locations) } else { try await shell.manager.startRecordingEverySubsession() }
        },
        Verb(usage: "unrecord all|main|ROOM", summary: "stop recording everything, the main session, or ROOM") { shell, a in
            let locations = try recordingLocations(shell, &a)
            if let locations { try await shell.manager.stopRecording(locations) } else { try await shell.manager.stopAllRecording() }
        },
        Verb(usage: "clear", summary: "everyone back to the main session; the rooms stay") { shell, a in
            try a.end()
            try await shell.session.breakoutRooms.clearAll()
        },
        Verb(usage: "destroy", summary: "remove every room, everyone back, the main session resumed and unmuted") { shell, a in
            try a.end()
            try await shell.session.breakoutRooms.destroyAll()
        },
    ]

    /// `all` (nil), `main`, or a room.
    private static func recordingLocations(_ shell: ClientShell, _ a: inout ClientArguments) throws(ClientError) -> [CaucusLocation]? {
        let word = try a.word("all, main or ROOM")
        try a.end()
        switch word.lowercased() {
        case "all": return nil
        case "main": return [.main]
        default: return [.room(try shell.snapshot.resolveRoom(word).id)]
        }
    }

    /// `audio`, `video` or neither (both).
    private static func media(_ a: inout ClientArguments) throws(ClientError) -> (audio: Bool, video: Bool) {
        let which = a.optionalWord()?.lowercased()
        try a.end()
        switch which {
        case nil: return (true, true)
        case "audio": return (true, false)
        case "video": return (false, true)
        case let other?: throw .usage("audio or video, not \"\(other)\": \(a.usage)")
        }
    }
}
