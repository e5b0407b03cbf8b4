/// Compares secrets in time that does not depend on where they first differ. `==` on strings
/// returns at the first differing byte, so a client timing its failed attempts could learn an
/// app secret one byte at a time; here every byte of the longer one is looked at.
public enum SecretComparison {
    public static func equal(_ expected: String, _ given: String) -> Bool {
        let left = Array(expected.utf8)
        let right = Array(given.utf8)
        var difference: UInt8 = left.count == right.count ? 0 : 1
        for index in 0..<max(left.count, right.count) {
            difference |= (index < left.count ? left[index] : 0) ^ (index < right.count ? right[index] : 0)
        }
        return difference == 0
    }
}
