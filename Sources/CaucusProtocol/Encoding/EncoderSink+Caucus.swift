import CaucusCore

/// Caucus's own one-value types, the commonest values in its frames, written without the
/// round trip through `encode(to:)` and a single-value container. Each is written exactly as
/// its `encode(to:)` writes it (a number, a raw-value string, or null for the main session); the encoding tests compare every event and frame
/// with JSONEncoder, which runs the real `encode(to:)`, so the two cannot drift apart unseen.
extension EncoderSink {
    @inline(__always)
    func writeCaucusScalar<T>(_ value: T) -> Bool {
        if T.self == UserID.self {
            writeInteger(unsafeBitCast(value, to: UserID.self).rawValue)
        } else if T.self == Instant.self {
            writeInteger(unsafeBitCast(value, to: Instant.self).milliseconds)
        } else if T.self == RoomID.self {
            writeInteger(unsafeBitCast(value, to: RoomID.self).rawValue)
        } else if T.self == MessageID.self {
            writeInteger(unsafeBitCast(value, to: MessageID.self).rawValue)
        } else if T.self == HelpRequestID.self {
            writeInteger(unsafeBitCast(value, to: HelpRequestID.self).rawValue)
        } else if T.self == Event.Kind.self {
            writeString(unsafeBitCast(value, to: Event.Kind.self).rawValue)
        } else if T.self == Role.self {
            writeString(unsafeBitCast(value, to: Role.self).rawValue)
        } else if T.self == Location.self {
            switch unsafeBitCast(value, to: Location.self) {
            case .main: writeNull()
            case .room(let id): writeInteger(id.rawValue)
            }
        } else if T.self == SubsessionStatus.self {
            writeString(unsafeBitCast(value, to: SubsessionStatus.self).rawValue)
        } else if T.self == UserView.self {
            // A snapshot's bulk: up to thousands per join reply.
            writeUserView(value as! UserView)
        } else {
            return false
        }
        return true
    }
}

extension EncoderSink {
    /// A `UserView` as its synthesized `encode(to:)` writes it: members in declaration order,
    /// `identity` only when present, `presence` as `Presence.encode(to:)` writes it.
    func writeUserView(_ user: UserView) {
        writeASCII("{\"id\":")
        writeInteger(user.id.rawValue)
        writeASCII(",\"name\":")
        writeString(user.name)
        writeASCII(",\"role\":")
        writeString(user.role.rawValue)
        writeASCII(",\"location\":")
        switch user.location {
        case .main: writeNull()
        case .room(let id): writeInteger(id.rawValue)
        }
        switch user.presence {
        case .connected: writeASCII(",\"presence\":{\"connected\":true}")
        case .reconnecting(let until):
            writeASCII(",\"presence\":{\"connected\":false,\"reconnectingUntil\":")
            writeInteger(until.milliseconds)
            writeASCII("}")
        }
        if let identity = user.identity {
            writeASCII(",\"identity\":")
            writeString(identity)
        }
        writeASCII(",\"joinedAt\":")
        writeInteger(user.joinedAt.milliseconds)
        writeASCII("}")
    }

    @inline(__always)
    private func writeASCII(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }
}
