import CaucusCore

extension CaucusError {
    /// What a client hears when the server itself failed (the store, most often). The cause is
    /// logged; its text never reaches a client: it is in no protocol's words, and it may tell
    /// a stranger about the server's insides.
    static let serverFailure = CaucusError(.internalError, "The server could not complete the request; nothing changed. Try again later.")
}
