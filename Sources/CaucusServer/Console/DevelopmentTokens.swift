import CaucusAuth
import CaucusCore
import Foundation

/// What the console may ask of the development app. Only a server running on its
/// development app (no apps configured) answers; any other server answers 404, so a
/// production deployment hands out neither tokens nor credentials.
struct DevelopmentTokenRequest: Decodable, Sendable {
    let session: String
    let role: RoleClaim
    let userIdentity: String?

    /// Decodes the body, refusing anything else with 1004 `invalidArguments`.
    static func decode(_ data: Data) throws(CaucusError) -> DevelopmentTokenRequest {
        do {
            return try JSONDecoder().decode(DevelopmentTokenRequest.self, from: data)
        } catch {
            throw CaucusError(
                .invalidArguments, #"Send {"session": "…", "role": "host" or "participant", "userIdentity": "…" (optional)}."#)
        }
    }

    /// A join token for the development app, valid for two hours.
    func mint(for app: AppCredentials, at now: Instant) throws(CaucusError) -> String {
        do {
            return try TokenMinter.mint(app: app, sessionName: session, role: role, issuedAt: now, userIdentity: userIdentity)
        } catch let error as CaucusError {
            throw error
        } catch {
            throw CaucusError(.internalError, "Could not mint a token: \(error)")
        }
    }
}

/// `GET /console/dev`: whether the development helpers are on.
struct DevelopmentStatus: Encodable, Sendable {
    let development: Bool
}

/// `POST /console/dev/token`'s answer.
struct DevelopmentToken: Encodable, Sendable {
    let token: String
    let appKey: String
}
