import CaucusAuth
import CaucusCore

extension SessionServer {
    /// A console host token is refused at the join (1024 `hostLinkReplaced`) once its class's host
    /// link was replaced after the token was given: the token carries the link's generation
    /// (`caucus_host_link`), the class book the current one. Without this, whoever had opened
    /// the old link kept the host seat within reach for the token's ten minutes after the
    /// teacher replaced it.
    ///
    /// Only tokens for a console class are asked about (role host, a class id as `session_key`,
    /// a class the book knows for the token's app); a host token an app's server mints for a
    /// class without the claim counts as generation 0. One read of the store per such join.
    func refuseReplacedHostLink(_ token: VerifiedToken, session: String) async throws(CaucusError) {
        guard token.role == .host, let classID = token.sessionKey, ConsoleClassCodes.isClassID(classID),
            let record = try await consoleClasses.record(classID), record.app == token.appKey,
            (token.hostLinkGeneration ?? 0) < record.hostGeneration
        else { return }
        throw Self.hostLinkReplaced(session)
    }
}
