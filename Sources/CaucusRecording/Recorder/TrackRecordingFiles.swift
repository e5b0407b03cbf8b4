/// The shell around one ``TrackRecorder``: performs its file actions in a folder, one file per
/// ``RecordingFileStart`` named `<baseName>-<index>.webm` (`.mkv` for H.264), and hands back what is the caller's
/// to do (ask for a keyframe, write the timeline). Owned by one caller at a time; not Sendable.
public final class TrackRecordingFiles {
    /// What the caller does next, in order.
    public enum Notice: Hashable, Sendable {
        case requestKeyframe
        /// `name` is the file's name in the folder.
        case fileStarted(name: String, RecordingFileStart)
        case fileEnded(name: String, RecordingFileEnd, bytes: Int)
    }

    public let folder: String
    public let baseName: String
    public let synchronize: Bool
    private var open: (name: String, file: WebMFile)?

    public init(folder: String, baseName: String, synchronize: Bool = false) {
        self.folder = folder
        self.baseName = baseName
        self.synchronize = synchronize
    }

    public static func fileName(baseName: String, index: Int, fileExtension: String) -> String {
        "\(baseName)-\(index).\(fileExtension)"
    }

    /// Performs `actions`. On a failure (a full disk: ``RecordingFileError/Code/diskFull``)
    /// the open file is closed, playable up to its last whole cluster, and the error thrown:
    /// the caller stops recording the track and says why.
    public func perform(_ actions: [TrackRecorderAction]) throws(RecordingFileError) -> [Notice] {
        var notices: [Notice] = []
        do throws(RecordingFileError) {
            for action in actions {
                switch action {
                case .requestKeyframe:
                    notices.append(.requestKeyframe)
                case .startFile(let start):
                    open?.file.abandon()
                    let name = Self.fileName(baseName: baseName, index: start.index, fileExtension: start.fileExtension)
                    open = nil
                    let file = try WebMFile(creatingAt: folder + "/" + name, header: start.header, synchronize: synchronize)
                    open = (name, file)
                    notices.append(.fileStarted(name: name, start))
                case .writeCluster(let bytes, let duration):
                    guard let open else { throw RecordingFileError(code: .closed, operation: .write, path: folder) }
                    try open.file.append(cluster: bytes, durationMilliseconds: duration)
                case .endFile(let end):
                    guard let current = open else { continue }
                    open = nil
                    try current.file.close(durationMilliseconds: end.durationMilliseconds)
                    notices.append(.fileEnded(name: current.name, end, bytes: current.file.bytesWritten))
                }
            }
        } catch {
            open?.file.abandon()
            open = nil
            throw error
        }
        return notices
    }
}
