import Caucus

/// Commands of the plan-and-commit flow: the host's plan, then starting, moving, stopping.
extension ClientShell {
    static let planVerbs: [Verb] = [
        Verb(usage: "plan add NAMES...", summary: "host: add subsessions to the plan") { shell, a in
            let names = try a.list("NAMES")
            try await shell.helper.addToPreList(names)
        },
        Verb(usage: "plan remove NAMES...", summary: "host: take subsessions out of the plan") { shell, a in
            let names = try a.list("NAMES")
            try await shell.helper.removeFromPreList(names)
        },
        Verb(usage: "plan clear", summary: "host: empty the plan") { shell, a in
            try a.end()
            try await shell.helper.clearPreList()
        },
        Verb(usage: "plan show", summary: "host: the plan, as the server has it") { shell, a in
            try a.end()
            let plan = try await shell.helper.preList()
            let describe = EventDescription(snapshot: shell.session.snapshot)
            shell.console.print(plan.isEmpty ? ["  the plan is empty"] : plan.map { "  " + describe.entry(name: $0.name, users: $0.assigned.map(describe.name)) })
        },
        Verb(usage: "assign-plan USER ROOM", summary: "host: put USER in the planned subsession ROOM") { shell, a in
            let user = try shell.user(&a)
            let room = try a.text("ROOM")
            try await shell.helper.preAssign([user.id], to: room)
        },
        Verb(usage: "commit", summary: "host: make the plan the subsessions") { shell, a in
            try a.end()
            try await shell.helper.commit()
        },
        Verb(usage: "withdraw", summary: "host: withdraw the committed subsessions") { shell, a in
            try a.end()
            try await shell.helper.withdraw()
        },
    ]

    static let managerVerbs: [Verb] = [
        Verb(usage: "start [--duration S] [--auto]", summary: "open the subsessions; a timer of S seconds; spread the unassigned") {
            shell, a in
            let duration = try a.option("--duration")
            let auto = a.flag("--auto")
            try a.end()
            try await shell.manager.start(durationSeconds: duration, autoAssign: auto)
        },
        Verb(usage: "stop [COUNTDOWN]", summary: "close the subsessions: everyone back after COUNTDOWN seconds (0: now)") { shell, a in
            let countdown = try a.optionalInteger("COUNTDOWN")
            try a.end()
            try await shell.manager.stop(countdownSeconds: countdown)
        },
        Verb(usage: "extend SECONDS", summary: "lengthen the running timer") { shell, a in
            let seconds = try a.integer("SECONDS")
            try a.end()
            try await shell.manager.extendTimer(bySeconds: seconds)
        },
        Verb(usage: "broadcast TEXT", summary: "send to everyone, in every subsession") { shell, a in
            let text = try a.text("TEXT")
            try await shell.manager.broadcast(text)
        },
        Verb(usage: "assign USER ROOM", summary: "move USER to ROOM (or plan it, before the start)") { shell, a in
            let user = try shell.user(&a)
            let room = try shell.room(&a)
            try a.end()
            try await shell.manager.move(user.id, to: room.id)
        },
        Verb(usage: "send-back USER", summary: "send USER back to the main session") { shell, a in
            let user = try shell.user(&a)
            try a.end()
            try await shell.manager.returnToMain(user.id)
        },
        Verb(usage: "everyone-back", summary: "send everyone back to the main session; the rooms stay open") { shell, a in
            try a.end()
            try await shell.manager.returnEveryone()
        },
        Verb(usage: "help-answer ID join|ignore", summary: "answer a help request: go to the room, or decline") { shell, a in
            let word = try a.word("ID")
            let answer = try a.word("join|ignore")
            try a.end()
            let number = CaucusSession.Snapshot.number(word, prefix: HelpRequestID.self)
            guard let request = try shell.manager.helpRequests.first(where: { $0.id.rawValue == number }) else {
                throw ClientError(name: "unknownHelpRequest", message: "no help request \"\(word)\" waiting (see `status`)")
            }
            switch answer.lowercased() {
            case "join": try await request.join()
            case "ignore": try await request.ignore()
            default: throw ClientError.usage("answer join or ignore, not \"\(answer)\"")
            }
        },
    ]
}
