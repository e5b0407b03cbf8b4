import CaucusCore
import CaucusJSON
import CaucusProtocol
import Foundation

/// How events and snapshots are written in a store's text columns, the same in every store:
/// an event as the JSON the core defines (same event, same bytes), a snapshot as the JSON of
/// the whole `SessionState`.
public struct StoredCoding: Sendable {
    private let encoder = StreamingJSONEncoder.caucus

    public init() {}

    public func body(of sequenced: SequencedEvent, in session: StoredSessionID) throws(StoreError) -> String {
        do {
            return String(decoding: try encoder.encode(sequenced.event), as: UTF8.self)
        } catch {
            throw StoreError(.unencodableEvent, "Event \(sequenced.seq) for session \(session) does not encode: \(error)")
        }
    }

    public func event(seq: Int, at: Instant, body: String, in session: StoredSessionID) throws(StoreError) -> SequencedEvent {
        do {
            return SequencedEvent(seq: seq, at: at, event: try JSONDecoder().decode(Event.self, from: Data(body.utf8)))
        } catch {
            throw StoreError.undecodable(seq, in: session, error)
        }
    }

    public func body(of snapshot: StoredSnapshot, in session: StoredSessionID) throws(StoreError) -> String {
        do {
            return String(decoding: try JSONEncoder().encode(snapshot.state), as: UTF8.self)
        } catch {
            throw StoreError(.unencodableEvent, "The snapshot of session \(session) at \(snapshot.seq) does not encode: \(error)")
        }
    }

    public func snapshot(seq: Int, body: String, in session: StoredSessionID) throws(StoreError) -> StoredSnapshot {
        do {
            return StoredSnapshot(seq: seq, state: try JSONDecoder().decode(SessionState.self, from: Data(body.utf8)))
        } catch {
            throw StoreError(.undecodableEvent, "The snapshot of session \(session) at \(seq) does not decode: \(error)")
        }
    }
}
