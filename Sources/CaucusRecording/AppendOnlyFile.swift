#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A file created for recording (never over an existing one) and written front to back with
/// plain system calls, so that every failure comes back with its `errno` (a full disk is
/// ``RecordingFileError/Code/diskFull``). Closed by ``close()`` or when released.
/// Owned by one caller at a time; not Sendable.
final class AppendOnlyFile {
    let path: String
    private var descriptor: Int32
    private(set) var bytesWritten = 0

    init(creatingAt path: String) throws(RecordingFileError) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw RecordingFileError(errno: errno, operation: .create, path: path) }
        self.descriptor = descriptor
        self.path = path
    }

    /// Opens an existing file to write at its end (a location recorded again, or after a
    /// crash). A last line cut off without its newline is cut away first, so the next line
    /// starts clean.
    init(continuingLinesAt path: String) throws(RecordingFileError) {
        let descriptor = open(path, O_RDWR | O_APPEND | O_CLOEXEC)
        guard descriptor >= 0 else { throw RecordingFileError(errno: errno, operation: .create, path: path) }
        self.descriptor = descriptor
        self.path = path
        let end = lseek(descriptor, 0, SEEK_END)
        var keep = end
        var byte: UInt8 = 0
        // Back from the end to the last newline: a line a crash cut off goes.
        while keep > 0, pread(descriptor, &byte, 1, keep - 1) == 1, byte != UInt8(ascii: "\n") { keep -= 1 }
        if keep < end, ftruncate(descriptor, keep) != 0 {
            let failure = RecordingFileError(errno: errno, operation: .write, path: path)
            close()
            throw failure
        }
    }

    /// Takes over an open descriptor (a test's /dev/full).
    init(descriptor: Int32, path: String) {
        self.descriptor = descriptor
        self.path = path
    }

    deinit { close() }

    var isOpen: Bool { descriptor >= 0 }

    func append(_ bytes: [UInt8]) throws(RecordingFileError) {
        guard descriptor >= 0 else { throw RecordingFileError(code: .closed, operation: .write, path: path) }
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { systemWrite(descriptor, $0.baseAddress! + offset, bytes.count - offset) }
            if written < 0 {
                if errno == EINTR { continue }
                throw RecordingFileError(errno: errno, operation: .write, path: path)
            }
            offset += written
            bytesWritten += written
        }
    }

    /// Overwrites bytes already written, at `offset` from the start.
    func overwrite(_ bytes: [UInt8], at offset: Int) throws(RecordingFileError) {
        guard descriptor >= 0 else { throw RecordingFileError(code: .closed, operation: .write, path: path) }
        let written = bytes.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, bytes.count, off_t(offset)) }
        guard written == bytes.count else { throw RecordingFileError(errno: errno, operation: .write, path: path) }
    }

    func synchronize() throws(RecordingFileError) {
        guard descriptor >= 0 else { throw RecordingFileError(code: .closed, operation: .synchronize, path: path) }
        if fsync(descriptor) != 0 { throw RecordingFileError(errno: errno, operation: .synchronize, path: path) }
    }

    func close() {
        if descriptor >= 0 { _ = systemClose(descriptor) }
        descriptor = -1
    }
}

// The C calls under names that do not clash with this type's own methods.
private func systemWrite(_ descriptor: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
    write(descriptor, buffer, count)
}

private func systemClose(_ descriptor: Int32) -> Int32 {
    close(descriptor)
}
