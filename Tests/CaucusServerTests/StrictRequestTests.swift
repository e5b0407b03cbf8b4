import CaucusCore
import CaucusProtocol
import Foundation
import Testing

/// Requests are read strictly: what RFC 8259 forbids, and what Foundation's decoder would
/// quietly accept, is refused with a stable code and a message in the protocol's words.
@Suite struct StrictRequestTests {
    static func refusal(_ text: String) -> FrameError? {
        refusal(Data(text.utf8))
    }

    static func refusal(_ data: Data) -> FrameError? {
        do throws(FrameError) {
            _ = try ClientFrame.decode(data)
            return nil
        } catch {
            return error
        }
    }

    @Test(arguments: [
        (#"{"id":1,"op":"ping","op":"chat","text":"x"}"#, "the key \"op\" appears twice"),
        (#"{"id":1,"op":"chat","text":"a","text":"b"}"#, "the key \"text\" appears twice"),
        (#"{"id":1,"id":2,"op":"ping"}"#, "the key \"id\" appears twice"),
        (#"{"id":1,"op":"updateSettings","settings":{"countdownSeconds":5,"countdownSeconds":9}}"#, "appears twice"),
        (#"{"id":1,"op":"ping",}"#, "a comma is followed by no member"),
        (#"{"id":1,"op":"assign","users":[2,],"room":1}"#, "a comma is followed by no member"),
        ("{\"id\":1,\"op\":\"chat\",\"text\":\"a\nb\"}", "raw control character"),
        ("{\"id\":1,\"op\":\"chat\",\"text\":\"a\u{0}b\"}", "raw control character"),
        ("\u{FEFF}{\"id\":1,\"op\":\"ping\"}", "byte-order mark"),
    ])
    func nonStrictJSONIsAMalformedFrame(_ text: String, _ reason: String) throws {
        let refusal = try #require(Self.refusal(text), "accepted: \(text)")
        #expect(refusal.error.code == .malformedFrame)
        #expect(refusal.id == nil, "an id read from a frame that is not JSON is a guess")
        #expect(refusal.error.message.contains(reason), "\(refusal.error.message)")
    }

    @Test func theSameRequestWrittenStrictlyIsAccepted() throws {
        for text in [#"{"id":1,"op":"chat","text":"a\nb"}"#, #" {"id" : 1 , "op" : "assign" , "users" : [2] , "room" : 1} "#] {
            #expect(Self.refusal(text) == nil, "\(text)")
        }
    }

    @Test(arguments: [
        (#"{"id":1,"op":"stop","countdownSeconds":null}"#, "countdownSeconds"),
        (#"{"id":1,"op":"start","durationSeconds":null}"#, "durationSeconds"),
        (#"{"id":1,"op":"leave","endSession":null}"#, "endSession"),
        (#"{"id":1,"op":"chat","text":"hi","to":null}"#, "to"),
        (#"{"id":1,"op":"updateSettings","settings":{"countdownSeconds":null}}"#, "settings.countdownSeconds"),
        (#"{"id":1,"op":"join","session":"S","userName":"U","token":"t","password":null}"#, "password"),
        (#"{"id":1,"op":"assign","users":[2,null],"room":1}"#, "users[1]"),
    ])
    func nullIsNeverReadAsAnAbsentArgument(_ text: String, _ argument: String) throws {
        let refusal = try #require(Self.refusal(text), "accepted: \(text)")
        #expect(refusal.error.code == .invalidArguments)
        #expect(refusal.id == 1)
        #expect(refusal.error.message.contains("\"\(argument)\" is null"), "\(refusal.error.message)")
    }

    /// Unknown fields are ignored whatever their value, `null` and fractions included; a field
    /// the server reads is still never `null` (issue 26, item 6).
    @Test(arguments: [
        (#"{"id":1,"op":"ping","trace":null}"#, Request.ping(after: nil)),
        (#"{"id":1,"op":"ping","trace":null,"x":{"y":null},"z":[null]}"#, Request.ping(after: nil)),
        (#"{"id":1,"op":"stop","clientVersion":1.5,"hint":1e30}"#, Request.command(.stop(countdownSeconds: nil))),
        (#"{"id":1,"op":"chat","text":"hi","replyTo":null}"#, Request.command(.chat("hi", to: .room))),
    ])
    func nullInAnUnknownFieldIsIgnored(_ text: String, _ request: Request) throws {
        #expect(try ClientFrame.decode(Data(text.utf8)).request == request)
    }

    @Test func everyFieldTheServerReadsStillRefusesNull() throws {
        for name in ["protocol", "secret", "lastSeq", "sdp", "screenShareMids", "media", "newName", "definition"] {
            let refusal = try #require(Self.refusal(#"{"id":1,"op":"ping","\#(name)":null}"#), "accepted null \(name)")
            #expect(refusal.error.message.contains("\"\(name)\" is null"), "\(refusal.error.message)")
        }
    }

    @Test func aStopWithoutACountdownIsStillAPlainStop() throws {
        #expect(try ClientFrame.decode(Data(#"{"id":1,"op":"stop"}"#.utf8)).request == .command(.stop(countdownSeconds: nil)))
    }

    @Test func aMediaOfferNamesItsScreenShareSectionsOrNone() throws {
        #expect(try ClientFrame.decode(Data(#"{"id":1,"op":"mediaOffer","sdp":"v=0"}"#.utf8)).request == .mediaOffer(sdp: "v=0", screenShareMids: []))
        #expect(
            try ClientFrame.decode(Data(#"{"id":1,"op":"mediaOffer","sdp":"v=0","screenShareMids":["3"]}"#.utf8)).request
                == .mediaOffer(sdp: "v=0", screenShareMids: ["3"]))
    }

    @Test func everyUnreadableIDGetsTheSameCodeAndMessage() throws {
        let texts = [
            #"{"id":1.5,"op":"ping"}"#, #"{"id":1e30,"op":"ping"}"#, #"{"id":99999999999999999999,"op":"ping"}"#,
            #"{"id":"1","op":"ping"}"#, #"{"id":null,"op":"ping"}"#, #"{"op":"ping"}"#, #"{"id":[1],"op":"ping"}"#,
            #"{"id":true,"op":"ping"}"#, #"{"id":-9223372036854775809,"op":"ping"}"#,
        ]
        let refusals = try texts.map { text in try #require(Self.refusal(text), "accepted: \(text)") }
        for (text, refusal) in zip(texts, refusals) {
            #expect(refusal.error.code == .invalidArguments, "\(text): \(refusal.error)")
            #expect(refusal.id == nil, "\(text)")
            #expect(refusal.error.message == refusals[0].error.message, "\(text): \(refusal.error.message)")
        }
        #expect(refusals[0].error.message.contains("\"id\""))
        #expect(Self.refusal(#"{"id":-9223372036854775808,"op":"ping"}"#) == nil)
    }

    /// Names a Swift program would use and a client would not recognise.
    static let swiftWords = [
        "SessionMode", "HelpAnswer", "RoomCreators", "RoomDefinition", "SettingsChange", "Identifier", "UserKind", "RoomKind",
        "Int", "String", "Bool", "Double", "Array", "Dictionary", "Optional", "CodingKeys", "Swift", "Any", "Kind",
    ]

    @Test(arguments: [
        (#"{"id":1,"op":"setMode","mode":"seminar"}"#, #""mode" must be one of "#),
        (#"{"id":1,"op":"setMode","mode":0}"#, #""mode" must be one of "#),
        (#"{"id":1,"op":"answerHelp","request":1,"answer":"maybe"}"#, #""answer" must be one of "#),
        (#"{"id":1,"op":"updateSettings","settings":{"roomCreators":"anyone"}}"#, #""settings.roomCreators" must be one of "#),
        (#"{"id":1,"op":"createRooms","count":1,"definition":5}"#, #""definition" must be an object"#),
        (#"{"id":1,"op":"updateSettings","settings":[]}"#, #""settings" must be an object"#),
        (#"{"id":1,"op":"assign","users":7,"room":1}"#, #""users" must be an array"#),
        (#"{"id":1,"op":"assign","users":["a"],"room":1}"#, #""users[0]" must be an integer"#),
        (#"{"id":1,"op":"joinRoom","room":"x"}"#, #""room" must be an integer"#),
        (#"{"id":1,"op":"joinRoom","room":1.5}"#, #""room" must be an integer"#),
        (#"{"id":1,"op":"createRooms","count":2,"definition":{"capacity":2.5}}"#, #""definition.capacity" must be an integer"#),
        (#"{"id":1,"op":"chat","text":true}"#, #""text" must be a string"#),
        (#"{"id":1,"op":"muteParent","audio":"yes"}"#, #""audio" must be true or false"#),
        (#"{"id":1,"op":"seminar"}"#, #"Unknown op "seminar""#),
        (#"{"id":1,"op":7}"#, #""op" must be a string"#),
    ])
    func errorsAreInTheProtocolsWords(_ text: String, _ expected: String) throws {
        let refusal = try #require(Self.refusal(text), "accepted: \(text)")
        #expect(refusal.id == 1)
        #expect([.invalidArguments, .unknownOperation].contains(refusal.error.code))
        #expect(refusal.error.message.contains(expected), "\(refusal.error.message)")
        let words = Set(refusal.error.message.split(whereSeparator: { !$0.isLetter }).map(String.init))
        #expect(words.isDisjoint(with: Self.swiftWords), "\(refusal.error.message)")
    }

    @Test func theModeErrorListsEveryMode() throws {
        let message = try #require(Self.refusal(#"{"id":1,"op":"setMode","mode":"x"}"#)).error.message
        for mode in SessionMode.allCases { #expect(message.contains("\"\(mode.rawValue)\"")) }
    }

    @Test func anHTTPOperationBodyIsReadAsStrictly() {
        for body in [#"{"op":"stop","countdownSeconds":null}"#, #"{"op":"stop","op":"start"}"#, #"{"op":"stop",}"#] {
            do throws(FrameError) {
                _ = try ClientFrame.decodeOperation(Data(body.utf8))
                Issue.record("accepted: \(body)")
            } catch {
                #expect([.malformedFrame, .invalidArguments].contains(error.error.code))
            }
        }
    }
}
