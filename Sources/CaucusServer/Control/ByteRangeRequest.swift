import Foundation

/// A `Range` header (RFC 9110 §14.2) against a file of a known size: one range of bytes, the
/// whole file, or a range nothing of the file satisfies (416).
enum ByteRangeRequest: Equatable, Sendable {
    /// No range asked, or one the server ignores (another unit, several ranges, bad syntax):
    /// the whole file, 200.
    case whole
    /// These bytes, 206 with `Content-Range: bytes first-last/size`.
    case part(ClosedRange<Int64>)
    /// Nothing of the file: 416 with `Content-Range: bytes */size`.
    case unsatisfiable

    /// `header` against a file of `size` bytes. Only `bytes=first-last`, `bytes=first-` and
    /// `bytes=-suffix` are served; anything else (several ranges included) gets the whole file,
    /// as RFC 9110 allows a server that ignores Range.
    init(header: String?, size: Int64) {
        // The unit's name is case-insensitive (RFC 9110 §14.1): `Bytes=0-9` is a range too.
        guard let header, header.prefix(6).lowercased() == "bytes=", !header.contains(",") else {
            self = .whole
            return
        }
        let spec = header.dropFirst(6).trimmingCharacters(in: [" ", "\t"])
        guard let dash = spec.firstIndex(of: "-") else {
            self = .whole
            return
        }
        let first = spec[..<dash]
        let last = spec[spec.index(after: dash)...]
        let digits = { (text: Substring) in !text.isEmpty && text.count <= 18 && text.allSatisfy { $0.isASCII && $0.isNumber } }
        switch (digits(first), digits(last)) {
        case (true, _) where last.isEmpty || digits(last):
            guard let start = Int64(first) else {
                self = .whole
                return
            }
            let requestedEnd = last.isEmpty ? Int64.max : Int64(last) ?? .max
            guard requestedEnd >= start else {
                // first > last is not a valid range: ignored (RFC 9110 §14.1.1).
                self = .whole
                return
            }
            guard start < size else {
                self = .unsatisfiable
                return
            }
            self = .part(start...min(requestedEnd, size - 1))
        case (false, true) where first.isEmpty:
            guard let suffix = Int64(last), suffix > 0, size > 0 else {
                self = .unsatisfiable
                return
            }
            self = .part(max(0, size - suffix)...(size - 1))
        default:
            self = .whole
        }
    }
}
