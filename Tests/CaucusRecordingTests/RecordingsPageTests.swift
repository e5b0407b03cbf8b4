import CaucusRecording
import Testing

/// The recordings listing's pages (`RecordingsPage`, `RecordingsCursor`), alone: whatever the
/// limit, the pages together list every file once, in order, and every timeline once, on the
/// page where its location begins.
@Suite struct RecordingsPageTests {
    typealias Page = RecordingsPage<String, String>

    /// A session's folders: per location, its files (start, name) and whether it has a timeline.
    struct Folder {
        var location: RecordingLocation
        var files: [(start: Int64?, name: String)]
        var timeline: Bool
    }

    static func place(_ folder: Folder, _ file: (start: Int64?, name: String)) -> RecordingsCursor {
        RecordingsCursor(location: folder.location, start: file.start, file: file.name)
    }

    /// One page, as the server builds it: the folders in order, those the page wants.
    static func page(of folders: [Folder], limit: Int, after: RecordingsCursor?) -> Page {
        var page = Page(limit: limit, after: after)
        for folder in folders where page.wants(folder.location) {
            let files = folder.files.map { (place: place(folder, $0), file: "\(folder.location.name)/\($0.name)") }
            page.add(folder.location, files: files, timeline: folder.timeline ? folder.location.name : nil)
        }
        return page
    }

    /// Every page from the first, following `next`.
    static func walk(_ folders: [Folder], limit: Int) -> (files: [String], timelines: [String], pages: [Page]) {
        var pages: [Page] = []
        var after: RecordingsCursor?
        repeat {
            let page = page(of: folders, limit: limit, after: after)
            pages.append(page)
            after = page.next
        } while after != nil && pages.count <= 10_000
        return (pages.flatMap(\.files), pages.flatMap(\.timelines), pages)
    }

    static let sample: [Folder] = [
        Folder(location: .main, files: [(0, "u1-audio-0.webm"), (0, "u1-video-0.webm"), (900, "u2-audio-0.webm")], timeline: true),
        Folder(location: .room(2), files: [], timeline: true),
        Folder(location: .room(3), files: [(nil, "a9-video-0.webm"), (40, "u3-video-1.webm"), (10, "u3-video-0.webm")], timeline: true),
        Folder(location: .room(4), files: [(5, "u4-audio-0.webm")], timeline: false),
        Folder(location: .room(11), files: [], timeline: true),
    ]

    @Test func everyLimitListsEveryFileOnceInOrderAndEveryTimelineOnce() {
        let whole = Self.page(of: Self.sample, limit: 1000, after: nil)
        #expect(whole.next == nil)
        #expect(whole.files == [
            "main/u1-audio-0.webm", "main/u1-video-0.webm", "main/u2-audio-0.webm",
            "room-3/u3-video-0.webm", "room-3/u3-video-1.webm", "room-3/a9-video-0.webm", "room-4/u4-audio-0.webm",
        ], "by location, then start (none last), then name")
        #expect(whole.timelines == ["main", "room-2", "room-3", "room-11"])
        for limit in 1...8 {
            let (files, timelines, pages) = Self.walk(Self.sample, limit: limit)
            #expect(files == whole.files, "limit \(limit)")
            #expect(timelines == whole.timelines, "limit \(limit)")
            #expect(pages.allSatisfy { $0.files.count <= limit }, "limit \(limit)")
            #expect(pages.dropLast().allSatisfy { $0.files.count == limit }, "limit \(limit): every page but the last is full")
        }
    }

    @Test func aTimelineGoesWithItsLocationsFirstFiles() {
        // Three a page: main fills the first, so room 2's timeline waits for the second page,
        // where room 3 begins too.
        let first = Self.page(of: Self.sample, limit: 3, after: nil)
        #expect(first.files.count == 3 && first.timelines == ["main"])
        let second = Self.page(of: Self.sample, limit: 3, after: first.next)
        #expect(second.files == ["room-3/u3-video-0.webm", "room-3/u3-video-1.webm", "room-3/a9-video-0.webm"])
        #expect(second.timelines == ["room-2", "room-3"])
        let third = Self.page(of: Self.sample, limit: 3, after: second.next)
        #expect(third.files == ["room-4/u4-audio-0.webm"] && third.timelines == ["room-11"] && third.next == nil)
        // Two a page: main and room 3 each span two pages; each timeline is on the first of them.
        let pages = Self.walk(Self.sample, limit: 2).pages
        #expect(pages.map(\.timelines) == [["main"], ["room-2", "room-3"], [], ["room-11"]])
        #expect(pages[1].files == ["main/u2-audio-0.webm", "room-3/u3-video-0.webm"])
    }

    @Test func aPageIsRightWhenFilesComeAndGoBetweenRequests() {
        let first = Self.page(of: Self.sample, limit: 2, after: nil)
        #expect(first.next?.text == "main/0/u1-video-0.webm")
        var changed = Self.sample
        changed[0].files.removeAll { $0.name == "u1-video-0.webm" }  // the page's last file deleted
        changed[0].files.append((0, "u1-audio-1.webm"))  // one added before the cursor: not listed again
        changed[0].files.append((2000, "u2-video-0.webm"))  // one added after it: listed
        let second = Self.page(of: changed, limit: 2, after: first.next)
        #expect(second.files == ["main/u2-audio-0.webm", "main/u2-video-0.webm"])
        #expect(second.timelines.isEmpty, "main's timeline was on the first page")
    }

    @Test func aFullPageFollowedOnlyByTimelinesSaysSo() {
        let folders = [
            Folder(location: .main, files: [(0, "a-audio-0.webm")], timeline: true),
            Folder(location: .room(1), files: [], timeline: true),
        ]
        let first = Self.page(of: folders, limit: 1, after: nil)
        #expect(first.files == ["main/a-audio-0.webm"] && first.timelines == ["main"])
        #expect(first.next != nil, "room 1's timeline is still to come")
        let second = Self.page(of: folders, limit: 1, after: first.next)
        #expect(second.files.isEmpty && second.timelines == ["room-1"] && second.next == nil)
        // Nothing after the last file at all: no next.
        #expect(Self.page(of: [folders[0]], limit: 1, after: nil).next == nil)
    }

    @Test func cursorsOrderByLocationThenStartWithNoneLastThenName() {
        let ordered = [
            RecordingsCursor(location: .main, start: 5, file: "z-audio-0.webm"),
            RecordingsCursor(location: .main, start: nil, file: "a-audio-0.webm"),
            RecordingsCursor(location: .room(2), start: 0, file: "b-audio-0.webm"),
            RecordingsCursor(location: .room(2), start: 0, file: "c-audio-0.webm"),
            RecordingsCursor(location: .room(2), start: 7, file: "a-audio-0.webm"),
            RecordingsCursor(location: .room(10), start: -1, file: "a-audio-0.webm"),
        ]
        #expect(ordered.shuffled().sorted() == ordered)
        #expect(ordered.reversed().sorted() == ordered)
    }

    @Test func cursorsReadBackAndAnythingElseIsRefused() {
        for cursor in [
            RecordingsCursor(location: .main, start: 0, file: "u1-audio-0.webm"),
            RecordingsCursor(location: .room(12), start: nil, file: "u_x-video-3.mkv"),
            RecordingsCursor(location: .room(1), start: -5, file: "a.webm"),
        ] {
            #expect(RecordingsCursor(cursor.text) == cursor, "\(cursor.text)")
        }
        for text in [
            "", "main", "main/0", "main/0/u1-audio-0.webm/x", "room-01/0/a.webm", "hall/0/a.webm", "main/+5/a.webm", "main/05/a.webm",
            "main/0/../a.webm", "main/0/timeline.jsonl", "main/x/a.webm", "main/99999999999999999999/a.webm", "main//a.webm",
        ] {
            #expect(RecordingsCursor(text) == nil, "\(text)")
        }
    }
}
