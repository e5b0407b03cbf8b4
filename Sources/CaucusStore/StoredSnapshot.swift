import CaucusCore

/// A session's whole state after event `seq`, claims and passwords included: what a rebuild
/// starts from instead of the first event. Never sent to a client (`SessionSnapshot` is what a
/// client sees).
public struct StoredSnapshot: Sendable, Hashable {
    /// The last event the state includes.
    public let seq: Int
    public let state: SessionState

    public init(seq: Int, state: SessionState) {
        self.seq = seq
        self.state = state
    }
}
