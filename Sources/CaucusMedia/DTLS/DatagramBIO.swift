// CNIOBoringSSL: not swift-nio-ssl's public API; see DTLSCertificate.swift.
import CNIOBoringSSL

/// A BoringSSL BIO that keeps datagram boundaries: each `BIO_write` of the DTLS stack is one
/// outgoing datagram, each `BIO_read` returns one whole incoming datagram. (A memory BIO
/// would join consecutive datagrams into one stream and break DTLS record parsing.)
///
/// The BIO holds an unretained pointer to this object; the endpoint owning both frees the
/// `SSL` (and with it the BIO) before this object goes away.
final class DatagramBIO {
    private(set) var bio: OpaquePointer
    var incoming: [[UInt8]] = []
    var outgoing: [[UInt8]] = []

    init() throws(DTLSError) {
        guard let method = Self.method, let bio = BIO_new(method) else {
            throw .setupFailed(reason: BoringSSLErrors.drain())
        }
        self.bio = bio
        BIO_set_data(bio, Unmanaged.passUnretained(self).toOpaque())
        BIO_set_init(bio, 1)
    }

    func takeOutgoing() -> [[UInt8]] {
        defer { outgoing.removeAll(keepingCapacity: true) }
        return outgoing
    }

    // The method table is built once and never freed or changed: BoringSSL only reads it,
    // from any thread, which is safe for an immutable table.
    nonisolated(unsafe) private static let method: OpaquePointer? = {
        guard let method = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK, "caucus datagram") else {
            return nil
        }
        BIO_meth_set_write(method, datagramBIOWrite)
        BIO_meth_set_read(method, datagramBIORead)
        BIO_meth_set_ctrl(method, datagramBIOControl)
        return method
    }()

    fileprivate static func from(_ bio: OpaquePointer?) -> DatagramBIO? {
        guard let bio, let data = BIO_get_data(bio) else { return nil }
        return Unmanaged<DatagramBIO>.fromOpaque(data).takeUnretainedValue()
    }
}

private func datagramBIOWrite(bio: OpaquePointer?, buffer: UnsafePointer<CChar>?, length: CInt) -> CInt {
    guard let owner = DatagramBIO.from(bio), let buffer, length >= 0 else { return -1 }
    BIO_clear_retry_flags(bio)
    owner.outgoing.append(Array(UnsafeRawBufferPointer(start: buffer, count: Int(length))))
    return length
}

private func datagramBIORead(bio: OpaquePointer?, buffer: UnsafeMutablePointer<CChar>?, length: CInt) -> CInt {
    guard let owner = DatagramBIO.from(bio), let buffer, length >= 0 else { return -1 }
    BIO_clear_retry_flags(bio)
    guard !owner.incoming.isEmpty else {
        BIO_set_retry_read(bio)
        return -1
    }
    let datagram = owner.incoming.removeFirst()
    // DTLS reads with a buffer larger than any record; a longer datagram is cut, as a
    // datagram socket would cut it, and fails the record layer's checks.
    let count = min(datagram.count, Int(length))
    datagram.withUnsafeBytes { bytes in
        guard let source = bytes.baseAddress, count > 0 else { return }
        UnsafeMutableRawPointer(buffer).copyMemory(from: source, byteCount: count)
    }
    return CInt(count)
}

private func datagramBIOControl(bio: OpaquePointer?, command: CInt, argument: Int, pointer: UnsafeMutableRawPointer?) -> Int {
    switch command {
    case BIO_CTRL_FLUSH: 1
    default: 0
    }
}
