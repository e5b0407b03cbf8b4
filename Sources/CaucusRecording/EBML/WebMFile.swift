/// The shell around a ``WebMMuxer``'s file: writes its header, then whole clusters, each with
/// one `write`, overwriting the header's duration in place (`pwrite`) after each, so the file
/// on disk always ends at a cluster's end and says how long it is. The cluster being filled
/// is held by the recorder (``TrackRecorder``): a `kill -9` loses at most that one (about a
/// second); what the kernel accepted survives the process. `synchronize` adds an `fsync` per
/// cluster, for power loss, at the cost of a disk flush per file per second. After a failure
/// (a full disk) the file is closed and playable up to its last whole cluster.
///
/// Owned by one caller at a time (an actor or an event loop); not Sendable.
public final class WebMFile {
    private let file: AppendOnlyFile
    private let durationOffset: Int
    private let synchronize: Bool

    public var path: String { file.path }
    /// Bytes on disk so far (the header and the whole clusters).
    public var bytesWritten: Int { file.bytesWritten }

    /// Creates the file (never over an existing one) and writes the header.
    public convenience init(creatingAt path: String, header: WebMHeader, synchronize: Bool = false) throws(RecordingFileError) {
        try self.init(file: AppendOnlyFile(creatingAt: path), header: header, synchronize: synchronize)
    }

    init(file: AppendOnlyFile, header: WebMHeader, synchronize: Bool) throws(RecordingFileError) {
        self.file = file
        self.durationOffset = header.durationOffset
        self.synchronize = synchronize
        do throws(RecordingFileError) {
            try file.append(header.bytes)
        } catch {
            file.close()
            throw error
        }
    }

    /// Writes one whole cluster, then the file's duration (the time of the cluster's last block).
    public func append(cluster: [UInt8], durationMilliseconds: Int64) throws(RecordingFileError) {
        guard file.isOpen else { throw RecordingFileError(code: .closed, operation: .write, path: path) }
        do throws(RecordingFileError) {
            try file.append(cluster)
            try file.overwrite(EBMLElement.floatBytes(Double(durationMilliseconds)), at: durationOffset)
            if synchronize { try file.synchronize() }
        } catch {
            abandon()
            throw error
        }
    }

    /// Sets the final duration and closes the file.
    public func close(durationMilliseconds: Int64) throws(RecordingFileError) {
        guard file.isOpen else { return }
        defer { file.close() }
        do throws(RecordingFileError) {
            try file.overwrite(EBMLElement.floatBytes(Double(durationMilliseconds)), at: durationOffset)
            if synchronize { try file.synchronize() }
        } catch {
            abandon()
            throw error
        }
    }

    /// Closes where it is.
    public func abandon() {
        file.close()
    }
}
