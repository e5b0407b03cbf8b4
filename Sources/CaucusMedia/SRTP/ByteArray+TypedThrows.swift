/// `Array.withUnsafe(Mutable)Bytes` are `rethrows`, which widens a typed error to
/// `any Error`; these carry `SRTPError` through unchanged.
extension Array where Element == UInt8 {
    mutating func withMutableBytes<R>(
        _ body: (UnsafeMutableRawBufferPointer) throws(SRTPError) -> R
    ) throws(SRTPError) -> R {
        let result = withUnsafeMutableBytes { bytes -> Result<R, SRTPError> in
            do throws(SRTPError) { return .success(try body(bytes)) } catch { return .failure(error) }
        }
        return try result.get()
    }

    func withBytes<R>(_ body: (UnsafeRawBufferPointer) throws(SRTPError) -> R) throws(SRTPError) -> R {
        let result = withUnsafeBytes { bytes -> Result<R, SRTPError> in
            do throws(SRTPError) { return .success(try body(bytes)) } catch { return .failure(error) }
        }
        return try result.get()
    }
}
