import ArgumentParser
import CaucusServer

/// `serve`'s TURN options: the TURN servers every joined user is given, with credentials of
/// its own minted from the secret shared with them (docs/turn.md).
extension Serve {
    func applyTURNOptions(to configuration: inout ServerConfiguration, environment: [String: String]) throws {
        let urls = turnURLs.isEmpty ? Self.urlList(environment["CAUCUS_TURN_URLS"] ?? "") : turnURLs
        let secretFile = turnSecretFile ?? environment["CAUCUS_TURN_SECRET_FILE"]
        let hours = try turnCredentialHours
            ?? environment["CAUCUS_TURN_CREDENTIAL_HOURS"].map { try Self.whole($0, "CAUCUS_TURN_CREDENTIAL_HOURS") }
        guard let secretFile else {
            if !urls.isEmpty {
                throw ValidationError(
                    "--turn-url needs --turn-secret-file: a file holding the secret shared with the TURN server (coturn's static-auth-secret), from which each user's credentials are minted.")
            }
            if hours != nil { throw ValidationError("--turn-credential-hours is for TURN: give --turn-url and --turn-secret-file too.") }
            return
        }
        do {
            configuration.turn = try TURNConfiguration(
                urls: urls, secretFile: secretFile, credentialHours: hours ?? TURNConfiguration.defaultCredentialHours)
        } catch {
            throw ValidationError("\(error)")
        }
    }

    /// CAUCUS_TURN_URLS: the URLs separated by commas or spaces.
    static func urlList(_ text: String) -> [String] {
        text.split { $0 == "," || $0.isWhitespace }.map(String.init)
    }
}
