import NIOConcurrencyHelpers

/// What the app reads synchronously (`session.snapshot`, `session.connectionState`): the
/// engine writes it before it delivers the event that changed it.
final class PublishedState: Sendable {
    private struct Values {
        var model: LocalModel?
        var connection = ConnectionState.disconnected
    }

    private let values = NIOLockedValueBox(Values())

    var model: LocalModel? { values.withLockedValue { $0.model } }

    var connection: ConnectionState { values.withLockedValue { $0.connection } }

    func publish(_ model: LocalModel?) { values.withLockedValue { $0.model = model } }

    /// Sets the connection state; false if it already was that.
    func publish(_ connection: ConnectionState) -> Bool {
        values.withLockedValue { values in
            guard values.connection != connection else { return false }
            values.connection = connection
            return true
        }
    }

    func snapshot(engine: SessionEngine) -> CaucusSession.Snapshot? {
        model.map { CaucusSession.Snapshot(model: $0, engine: engine) }
    }
}
