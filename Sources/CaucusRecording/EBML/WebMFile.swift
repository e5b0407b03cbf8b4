/// The shell around a ``WebMMuxer``: writes its bytes to a file, a whole cluster at a time.
///
/// A cluster is held in memory until the next one starts, then written with one `write` and the
/// header's duration overwritten in place (`pwrite`), so the file on disk always ends at a
/// cluster's end and says how long it is. A `kill -9` loses at most the cluster being filled
/// (about a second); what the kernel accepted survives the process. `synchronize` adds an
/// `fsync` per cluster, for power loss, at the cost of a disk flush per file per second.
/// After a failure (a full disk) the file is closed and playable up to its last whole cluster.
///
/// Owned by one caller at a time (an actor or an event loop); not Sendable.
public final class WebMFile {
    private let file: AppendOnlyFile
    private let durationOffset: Int
    private let synchronize: Bool
    private var pending: [UInt8] = []

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

    /// Takes one muxer output: a completed cluster goes to disk before the new one starts.
    public func write(_ output: WebMMuxer.Output) throws(RecordingFileError) {
        guard file.isOpen else { throw RecordingFileError(code: .closed, operation: .write, path: path) }
        if output.startsCluster, !pending.isEmpty {
            try flush(durationMilliseconds: output.durationBefore)
        }
        pending += output.bytes
    }

    /// Writes what is held, sets the final duration, and closes the file.
    public func close(durationMilliseconds: Int64) throws(RecordingFileError) {
        guard file.isOpen else { return }
        defer { file.close() }
        try flush(durationMilliseconds: durationMilliseconds)
    }

    /// Closes without writing what is held.
    public func abandon() {
        file.close()
        pending = []
    }

    private func flush(durationMilliseconds: Int64) throws(RecordingFileError) {
        do throws(RecordingFileError) {
            try file.append(pending)
            pending.removeAll(keepingCapacity: true)
            try file.overwrite(EBMLElement.floatBytes(Double(durationMilliseconds)), at: durationOffset)
            if synchronize { try file.synchronize() }
        } catch {
            abandon()
            throw error
        }
    }
}
