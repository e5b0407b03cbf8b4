public import CaucusCore

/// What a token that passed every check grants: who may join which session, in what role.
public struct VerifiedToken: Sendable, Hashable {
    public let appKey: String
    /// The `tpc` claim as the token spelled it.
    public let sessionName: String
    public let role: RoleClaim
    /// `nil` when the claim is absent, null or empty: an empty identity identifies nobody.
    public let userIdentity: String?
    /// `nil` when the claim is absent, null or empty.
    public let sessionKey: String?
    /// A console host token's host link generation (`caucus_host_link`): a host link replaced
    /// after the token was given refuses it (``CaucusError/Code/hostLinkReplaced``). Nil when absent.
    public let hostLinkGeneration: Int?
    public let issuedAt: Instant
    public let expiresAt: Instant

    public init(
        appKey: String, sessionName: String, role: RoleClaim, userIdentity: String?, sessionKey: String?,
        issuedAt: Instant, expiresAt: Instant, hostLinkGeneration: Int? = nil
    ) {
        self.appKey = appKey
        self.sessionName = sessionName
        self.role = role
        self.userIdentity = userIdentity
        self.sessionKey = sessionKey
        self.hostLinkGeneration = hostLinkGeneration
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
    }
}
