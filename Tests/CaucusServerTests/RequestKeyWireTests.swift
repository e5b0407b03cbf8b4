import CaucusCore
import CaucusProtocol
import Foundation
import Testing

/// `requestKey` on the wire: read into the chat command; a malformed one, or one on an
/// operation that does not take it, is refused with `invalidArguments` saying why.
@Suite struct RequestKeyWireTests {
    static func read(_ text: String) -> Result<ClientFrame, FrameError> {
        do throws(FrameError) {
            return .success(try ClientFrame.decode(Data(text.utf8)))
        } catch {
            return .failure(error)
        }
    }

    @Test func aChatCarriesItsKey() throws {
        let frame = try Self.read(#"{"id":3,"op":"chat","text":"hi","to":2,"requestKey":"0c8f1f52-3f1e:retry_1.a"}"#).get()
        #expect(frame.request == .command(.chat("hi", to: .user(UserID(2)), key: try RequestKey("0c8f1f52-3f1e:retry_1.a"))))
        #expect(try Self.read(#"{"id":3,"op":"chat","text":"hi"}"#).get().request == .command(.chat("hi", to: .room, key: nil)))
    }

    @Test(arguments: [
        (#"{"id":4,"op":"chat","text":"hi","requestKey":""}"#, "\"requestKey\" is empty"),
        ("{\"id\":4,\"op\":\"chat\",\"text\":\"hi\",\"requestKey\":\"\(String(repeating: "k", count: 65))\"}", "65 characters long: at most 64"),
        (#"{"id":4,"op":"chat","text":"hi","requestKey":"two words"}"#, "only ASCII letters, digits"),
        (#"{"id":4,"op":"chat","text":"hi","requestKey":7}"#, "\"requestKey\" must be a string"),
        (#"{"id":4,"op":"ping","requestKey":"k1"}"#, "\"requestKey\" is taken by chat only, not by ping"),
        (#"{"id":4,"op":"broadcast","text":"hi","requestKey":"k1"}"#, "not by broadcast"),
    ])
    func aBadKeyIsRefusedSayingWhy(_ text: String, _ says: String) throws {
        guard case .failure(let refusal) = Self.read(text) else {
            Issue.record("accepted: \(text)")
            return
        }
        #expect(refusal.id == 4)
        #expect(refusal.error.code == .invalidArguments)
        #expect(refusal.error.message.contains(says), "\(refusal.error.message)")
    }
}
