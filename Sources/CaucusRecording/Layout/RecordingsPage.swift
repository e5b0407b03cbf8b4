/// One page of a session's recordings listing, built location by location in the listing's
/// order (``RecordingsCursor``): at most `limit` files after the cursor, and the timelines of
/// the locations the page begins. A location's timeline is listed once, on the page where the
/// location's part of the listing begins, however its files fall across pages.
///
/// Pure: the caller reads each location's folder (only those ``wants(_:)``) and hands it in.
/// Generic over what a file and a timeline are listed as, so that the rules can be tested alone.
public struct RecordingsPage<File, Timeline> {
    public static var limits: ClosedRange<Int> { 1...1000 }

    public let limit: Int
    public let after: RecordingsCursor?
    public private(set) var files: [File] = []
    public private(set) var timelines: [Timeline] = []
    /// Where the next page starts; nil when this page holds the listing's end.
    public private(set) var next: RecordingsCursor?
    private var last: RecordingsCursor?

    public init(limit: Int, after: RecordingsCursor?) {
        precondition(Self.limits.contains(limit), "the caller checks the limit")
        self.limit = limit
        self.after = after
    }

    /// Whether anything of `location` can still go on this page (or tell it that there is more).
    public func wants(_ location: RecordingLocation) -> Bool {
        guard next == nil else { return false }
        guard let after else { return true }
        return location >= after.location
    }

    /// Adds what of `location` comes after the cursor: its files (each with its place in the
    /// listing's order) and its timeline (nil: none). Locations come in order, each once.
    public mutating func add(_ location: RecordingLocation, files: [(place: RecordingsCursor, file: File)], timeline: Timeline?) {
        guard wants(location) else { return }
        // The timeline belongs to the page where the location begins: not to a later page
        // than the one its first files went on.
        let begins = after.map { location > $0.location } ?? true
        let remaining = files.filter { entry in after.map { entry.place > $0 } ?? true }.sorted { $0.place < $1.place }
        let listedTimeline = begins ? timeline : nil
        guard !remaining.isEmpty || listedTimeline != nil else { return }
        if self.files.count == limit {
            // Full, and there is more: the next page starts after the last file listed.
            next = last ?? after
            return
        }
        if let listedTimeline { timelines.append(listedTimeline) }
        for entry in remaining {
            if self.files.count == limit {
                next = last
                return
            }
            self.files.append(entry.file)
            last = entry.place
        }
    }
}
