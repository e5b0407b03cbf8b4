/// The sample messages of RFC 5769 §2.1–2.3, byte for byte (short-term credentials).
enum RFC5769 {
    static let password = Array("VOkJxbRl1RmTxUk/WvJxBt".utf8)
    static let transactionID: [UInt8] = hexBytes("b7e7a701bc34d686fa87dfae")

    /// §2.1: a Binding request with SOFTWARE, PRIORITY, ICE-CONTROLLED, USERNAME "evtj:h6vY".
    static let request = hexBytes("""
        000100582112a442b7e7a701bc34d686fa87dfae802200105354554e207465737420636c
        69656e74002400046e0001ff80290008932ff9b151263b36000600096576746a3a683676
        59202020000800149aeaa70cbfd8cb56781ef2b5b2d3f249c1b571a280280004e57a3bcf
        """)

    /// §2.2: a success response carrying XOR-MAPPED-ADDRESS 192.0.2.1:32853.
    static let responseIPv4 = hexBytes("""
        0101003c2112a442b7e7a701bc34d686fa87dfae8022000b7465737420766563746f7220
        002000080001a147e112a643000800142b91f599fd9e90c38c7489f92af9ba53f06be7d7
        80280004c07d4c96
        """)

    /// §2.3: the same for [2001:db8:1234:5678:11:2233:4455:6677]:32853.
    static let responseIPv6 = hexBytes("""
        010100482112a442b7e7a701bc34d686fa87dfae8022000b7465737420766563746f7220
        002000140002a1470113a9faa5d3f179bc25f4b5bed2b9d900080014a382954e4be67bf1
        1784c97c8292c275bfe3ed4180280004c8fb0b4c
        """)
}

func hexBytes(_ text: String) -> [UInt8] {
    let digits = Array(text.filter { !$0.isWhitespace })
    return stride(from: 0, to: digits.count - 1, by: 2).map { UInt8(String(digits[$0...$0 + 1]), radix: 16)! }
}
