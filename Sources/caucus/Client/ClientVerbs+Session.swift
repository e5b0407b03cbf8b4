import Caucus

/// Commands about the session and its people: looking, chatting, roles, leaving.
extension ClientShell {
    static let sessionVerbs: [Verb] = [
        Verb(usage: "help", summary: "list the commands") { shell, a in
            try a.end()
            shell.console.print(helpLines)
        },
        Verb(usage: "users", summary: "who is here, with their role and room") { shell, a in
            try a.end()
            shell.console.print(try shell.snapshot.userLines)
        },
        Verb(usage: "rooms", summary: "the subsessions, who is in them and who is assigned") { shell, a in
            try a.end()
            shell.console.print(try shell.snapshot.roomLines)
        },
        Verb(usage: "status", summary: "the whole snapshot: breakout status, timer, you, users, rooms") { shell, a in
            try a.end()
            shell.console.print(try shell.snapshot.statusLines)
        },
        Verb(usage: "chat TEXT", summary: "send to everyone in your room") { shell, a in
            let text = try a.text("TEXT")
            try await shell.session.chat.send(text)
        },
        Verb(usage: "dm USER TEXT", summary: "send to one user, wherever they are") { shell, a in
            let user = try shell.user(&a)
            let text = try a.text("TEXT")
            try await shell.session.chat.send(text, to: user.id)
        },
        Verb(usage: "manager USER", summary: "host: make USER a manager") { shell, a in
            let user = try shell.user(&a)
            try a.end()
            try await shell.session.userHelper.makeManager(user.id)
        },
        Verb(usage: "unmanager USER", summary: "host: revoke USER's manager role") { shell, a in
            let user = try shell.user(&a)
            try a.end()
            try await shell.session.userHelper.revokeManager(user.id)
        },
        Verb(usage: "host USER", summary: "host: hand the host role to USER") { shell, a in
            let user = try shell.user(&a)
            try a.end()
            try await shell.session.userHelper.transferHost(to: user.id)
        },
        Verb(usage: "rename USER NAME", summary: "rename USER (yourself, or anyone as host)") { shell, a in
            let user = try shell.user(&a)
            let name = try a.text("NAME")
            try await shell.session.userHelper.rename(user.id, to: name)
        },
        Verb(usage: "remove USER", summary: "host: remove USER from the session") { shell, a in
            let user = try shell.user(&a)
            try a.end()
            try await shell.session.userHelper.remove(user.id)
        },
        Verb(usage: "leave [end]", summary: "leave and exit; `end` ends the session for everyone (host)", ends: true) { shell, a in
            let end = a.flag("end")
            try a.end()
            try await shell.session.leave(endSession: end)
        },
        Verb(usage: "quit", summary: "leave and exit (as does the end of the input)", ends: true) { shell, a in
            try a.end()
            try await shell.session.leave()
        },
    ]
}
