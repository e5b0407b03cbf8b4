import Crypto
import Foundation

/// The identity a participant link's token carries: one per browser, so that a person the host
/// removes cannot come back from the same browser with the same link (the session refuses a
/// removed identity, 2031 `removedFromSession`). It is derived from the browser's own random id
/// (kept in its storage) by a hash, because identities are shown to the other users and the id
/// itself is what a browser presents for a personal link. A fresh browser, or one whose storage
/// was cleared, is a new person: the link admits by name, not by who someone is.
enum ConsoleSeatIdentity {
    static let prefix = "console-seat-"

    /// `console-seat-` and 16 hex digits (29 characters, within `user_identity`'s 35), or nil
    /// without a usable browser id (then the token has no identity, as before).
    static func identity(forBrowser browser: String?) -> String? {
        guard let browser, !browser.isEmpty, browser.utf8.count <= 128 else { return nil }
        let digest = SHA256.hash(data: Data(browser.utf8))
        return prefix + digest.prefix(8).map { String(format: "%02x", $0) }.joined()
    }
}
