import CaucusCore
import CaucusJSON

extension StreamingJSONEncoder {
    /// The encoder for Caucus's frames and stored events: Caucus's scalars written directly.
    public static let caucus = StreamingJSONEncoder(scalars: CaucusJSONScalars.self)
}

/// Caucus's own one-value types, the commonest values in its frames, written without the
/// round trip through `encode(to:)` and a single-value container. Each is written exactly as
/// its `encode(to:)` writes it (a number, a raw-value string, or null for the main session);
/// the encoding tests compare every event and frame with JSONEncoder, which runs the real
/// `encode(to:)`, so the two cannot drift apart unseen.
public enum CaucusJSONScalars: JSONScalarWriter {
    @inline(__always)
    public static func write<T>(_ value: T, into output: JSONScalarOutput) -> Bool {
        if T.self == UserID.self {
            output.writeInteger(unsafeBitCast(value, to: UserID.self).rawValue)
        } else if T.self == Instant.self {
            output.writeInteger(unsafeBitCast(value, to: Instant.self).milliseconds)
        } else if T.self == RoomID.self {
            output.writeInteger(unsafeBitCast(value, to: RoomID.self).rawValue)
        } else if T.self == MessageID.self {
            output.writeInteger(unsafeBitCast(value, to: MessageID.self).rawValue)
        } else if T.self == HelpRequestID.self {
            output.writeInteger(unsafeBitCast(value, to: HelpRequestID.self).rawValue)
        } else if T.self == Event.Kind.self {
            output.writeString(unsafeBitCast(value, to: Event.Kind.self).rawValue)
        } else if T.self == Role.self {
            output.writeString(unsafeBitCast(value, to: Role.self).rawValue)
        } else if T.self == Location.self {
            switch unsafeBitCast(value, to: Location.self) {
            case .main: output.writeNull()
            case .room(let id): output.writeInteger(id.rawValue)
            }
        } else if T.self == SubsessionStatus.self {
            output.writeString(unsafeBitCast(value, to: SubsessionStatus.self).rawValue)
        } else if T.self == UserView.self {
            // A snapshot's bulk: up to thousands per join reply.
            writeUserView(value as! UserView, into: output)
        } else {
            return false
        }
        return true
    }
}

extension CaucusJSONScalars {
    /// A `UserView` as its synthesized `encode(to:)` writes it: members in declaration order,
    /// `identity` and `publishing` only when present, `presence` as `Presence.encode(to:)` writes it.
    static func writeUserView(_ user: UserView, into output: JSONScalarOutput) {
        output.writeVerbatim("{\"id\":")
        output.writeInteger(user.id.rawValue)
        output.writeVerbatim(",\"name\":")
        output.writeString(user.name)
        output.writeVerbatim(",\"role\":")
        output.writeString(user.role.rawValue)
        output.writeVerbatim(",\"location\":")
        switch user.location {
        case .main: output.writeNull()
        case .room(let id): output.writeInteger(id.rawValue)
        }
        switch user.presence {
        case .connected: output.writeVerbatim(",\"presence\":{\"connected\":true}")
        case .reconnecting(let until):
            output.writeVerbatim(",\"presence\":{\"connected\":false,\"reconnectingUntil\":")
            output.writeInteger(until.milliseconds)
            output.writeVerbatim("}")
        }
        if let identity = user.identity {
            output.writeVerbatim(",\"identity\":")
            output.writeString(identity)
        }
        output.writeVerbatim(",\"joinedAt\":")
        output.writeInteger(user.joinedAt.milliseconds)
        if !user.publishing.isEmpty {
            output.writeVerbatim(",\"publishing\":[")
            for (index, kind) in user.publishing.kinds.enumerated() {
                if index > 0 { output.writeVerbatim(",") }
                output.writeString(kind.rawValue)
            }
            output.writeVerbatim("]")
        }
        output.writeVerbatim("}")
    }
}
