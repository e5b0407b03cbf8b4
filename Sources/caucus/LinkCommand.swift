import ArgumentParser
import CaucusAuth
import CaucusCore
import CaucusServer
import Foundation

/// `caucus link`: prints a web console link for a class, signed for an app of the apps file
/// (or the development app), so that a server with configured apps opens classes without an
/// app server of its own: an operator or a school's script runs it, and hands the host link to
/// the teacher.
struct LinkCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "link",
        abstract: "Print a web console link for a class: a host link that opens a new class, or a class's participant link.",
        discussion: """
            Signs for --app in the apps file given with --config (the file `caucus serve --config` reads), \
            else for the development app in <data>/\(AppCredentials.developmentFileName). A host link names a new \
            class (its id is printed on standard error); its host gets the participant link on the console page, \
            or from `caucus link --role participant --class ID`. Links live 48 hours; the class ends with its session.
            """)

    enum Role: String, ExpressibleByArgument, CaseIterable {
        case host, participant
    }

    @Option(help: "The class's session name.") var session: String
    @Option(help: "The link's role: host opens a new class, participant joins one (with --class).") var role: Role = .host
    @Option(name: .customLong("class"), help: "The class's id (a participant link, or another host link of a class opened from this one's).")
    var classID: String?
    @Option(help: "The apps file (JSON: {\"apps\": [{\"key\", \"secret\", …}]}).") var config: String?
    @Option(help: "The key of the app in --config to sign for (needed when the file has several).") var app: String?
    @Option(help: "The console's address as people open it (the server's public URL).") var url = "http://127.0.0.1:8080"
    @Option(help: "The server's data directory, where the development app is kept (without --config).") var data = "./caucus-data"

    func validate() throws {
        if role == .participant && classID == nil {
            throw ValidationError("A participant link is for a class: give --class with the id its host link was made with.")
        }
        if let classID, !ConsoleClassCodes.isClassID(classID) {
            throw ValidationError("--class is a class id: 32 lowercase hexadecimal digits, as `caucus link` printed it.")
        }
        if app != nil && config == nil { throw ValidationError("--app names an app of the apps file: give --config too.") }
        guard let base = URL(string: url), base.scheme == "http" || base.scheme == "https", base.host != nil else {
            throw ValidationError("--url is the console's address, such as https://caucus.example.org.")
        }
    }

    func run() throws {
        let credentials = try credentials()
        let now = Instant(milliseconds: Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)))
        let id = classID ?? ConsoleClassCodes.newClassID()
        let code: String
        do {
            code = try ConsoleClassCodes.code(session: session, classID: id, role: role == .host ? .host : .participant, app: credentials, at: now)
        } catch {
            throw TokenCommand.Failure(description: error.message)
        }
        var link = URLComponents(string: url)!
        link.path = "/console/"
        link.queryItems = [URLQueryItem(name: "session", value: session), URLQueryItem(name: "invite", value: code)]
        // `+` means a space in a query: spell it out, as browsers' URLSearchParams read it.
        link.percentEncodedQuery = link.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
        FileHandle.standardError.write(Data("Class \(id) of \(session) (\(credentials.key)).\n".utf8))
        print(link.url!.absoluteString)
    }

    private func credentials() throws -> AppCredentials {
        guard let config else { return try DevelopmentApp.load(data: data) }
        let apps: [AppCredentials]
        do {
            apps = try AppsFile.load(config)
        } catch {
            throw TokenCommand.Failure(description: error.description)
        }
        if let app {
            guard let found = apps.first(where: { $0.key == app }) else {
                throw TokenCommand.Failure(description: "\(config) has no app with key \(app): it has \(apps.map(\.key).joined(separator: ", ")).")
            }
            return found
        }
        guard apps.count == 1, let only = apps.first else {
            throw TokenCommand.Failure(description: "\(config) has \(apps.count) apps: name one with --app (\(apps.map(\.key).joined(separator: ", "))).")
        }
        return only
    }
}
