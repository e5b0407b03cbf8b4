/// Which live session a name refers to, per app. Names are unique per app, compared
/// case-insensitively; two apps may use the same name and get different sessions. A name is
/// free again once its session has ended.
public struct SessionDirectory<SessionHandle: Hashable & Sendable>: Sendable {
    private struct Key: Hashable, Sendable {
        let app: String
        let name: String
    }

    private var live: [Key: SessionHandle] = [:]

    public init() {}

    /// The live session `name` refers to in `app`, if any.
    public func session(app: String, named name: String) -> SessionHandle? {
        live[Key(app: app, name: SessionName.key(name))]
    }

    /// Records a newly created session under its name.
    public mutating func register(_ handle: SessionHandle, app: String, named name: String) {
        live[Key(app: app, name: SessionName.key(name))] = handle
    }

    /// Frees the name of an ended session.
    public mutating func end(app: String, named name: String) {
        live[Key(app: app, name: SessionName.key(name))] = nil
    }

    public var count: Int { live.count }
}
