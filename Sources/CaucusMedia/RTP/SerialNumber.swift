/// RFC 1982 serial-number comparison for RTP's wrapping counters: `a` is newer than `b` when
/// it lies less than half the number space ahead of it. Inlinable: the SFU's slot rewriter
/// (another module) compares every forwarded packet's numbers with it.
package enum SerialNumber {
    @inlinable package static func isNewer(_ a: UInt16, than b: UInt16) -> Bool { a != b && (a &- b) < 0x8000 }

    @inlinable package static func isNewer(_ a: UInt32, than b: UInt32) -> Bool { a != b && (a &- b) < 0x8000_0000 }

    /// Whether `value` lies in `first...last`, counting forward from `first` with wrap-around.
    @inlinable package static func contains(_ value: UInt16, from first: UInt16, through last: UInt16) -> Bool {
        (value &- first) <= (last &- first)
    }
}
