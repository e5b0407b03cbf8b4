/// Keyed commands (`RequestKey`): each user's latest keyed commands are remembered in the
/// state itself, so the store's log and snapshots carry them (a session rebuilt after a
/// restart, or taken over by another node, still knows what it applied), and a repeat is
/// decided like any command: purely, from the state.
extension SessionState {
    /// How many keyed commands are remembered per user: a repeat of an older one is applied
    /// again. A client retries a command it never heard the outcome of, right after its
    /// connection comes back, so only its latest few matter.
    public static let rememberedRequestLimit = 32

    /// Whether `request` by `user` was applied already (true: a repeat, to answer without
    /// applying it again). Its key given to another command is refused.
    func isRepeat(of request: RememberedRequest, by user: UserID) throws(CaucusError) -> Bool {
        guard let earlier = requestKeys[user]?.last(where: { $0.key == request.key }) else { return false }
        guard earlier == request else {
            throw CaucusError(
                .requestKeyReused,
                "requestKey \"\(request.key)\" was given to another command of yours already; a new command needs a new key.")
        }
        return true
    }

    mutating func remember(_ message: ChatMessage) {
        guard let key = message.requestKey else { return }
        let target: ChatTarget
        switch message.scope {
        case .room: target = .room
        case .direct(let user): target = .user(user)
        }
        var remembered = requestKeys[message.from] ?? []
        remembered.append(RememberedRequest(key: key, text: message.text, target: target))
        if remembered.count > Self.rememberedRequestLimit { remembered.removeFirst(remembered.count - Self.rememberedRequestLimit) }
        requestKeys[message.from] = remembered
    }
}

/// A keyed command applied: its key and what it asked for (a chat message's target, and its
/// text as a 64-bit FNV-1a digest: a message may be 4,000 characters, and a digest only ever
/// compared with another of the same user and key never meets a collision worth a thought),
/// to tell a repeat from another command under the same key.
public struct RememberedRequest: Hashable, Sendable, Codable {
    public let key: RequestKey
    public let textDigest: UInt64
    public let target: ChatTarget

    public init(key: RequestKey, text: String, target: ChatTarget) {
        self.key = key
        self.textDigest = Self.digest(text)
        self.target = target
    }

    /// FNV-1a over the text's UTF-8: the same on every platform and in every process (unlike
    /// `Hasher`, seeded anew in each), so a digest stored by one node matches on another.
    static func digest(_ text: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x100_0000_01b3
        }
        return hash
    }

    private enum CodingKeys: String, CodingKey { case key, text, to }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        key = try container.decode(RequestKey.self, forKey: .key)
        // Hexadecimal: not every JSON reader keeps a 64-bit number whole.
        let hex = try container.decode(String.self, forKey: .text)
        guard let digest = UInt64(hex, radix: 16) else {
            throw DecodingError.dataCorruptedError(forKey: .text, in: container, debugDescription: "not a hexadecimal digest: \(hex)")
        }
        textDigest = digest
        target = try container.decodeIfPresent(UserID.self, forKey: .to).map(ChatTarget.user) ?? .room
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(key, forKey: .key)
        try container.encode(String(textDigest, radix: 16), forKey: .text)
        if case .user(let user) = target { try container.encode(user, forKey: .to) }
    }
}
