import CaucusCore
import Foundation

/// Turns what `JSONDecoder` says about a request into errors in the protocol's words: field
/// names as the client wrote them, JSON types, and an enum's allowed values, never a Swift
/// type name.
enum RequestReading {
    /// One message for every `id` that is not an integer (a string, a fraction, a number too
    /// big for 64 bits, `null`) or is missing.
    static let idError = CaucusError(
        .invalidArguments, "Every request needs an \"id\": a whole number from -9223372036854775808 to 9223372036854775807.")

    static let notAnObject = CaucusError(.malformedFrame, "The frame must be a JSON object.")

    /// The values an enum-typed argument takes, by the argument's name.
    static let allowedValues: [String: [String]] = [
        "mode": SessionMode.allCases.map(\.rawValue),
        "answer": HelpAnswer.allCases.map(\.rawValue),
        "roomCreators": RoomCreators.allCases.map(\.rawValue),
        "media": MediaKind.allCases.map(\.rawValue),
    ]

    /// `null` is never an argument's value: "no value" is said by leaving the argument out, so
    /// that `{"op": "stop", "countdownSeconds": null}` cannot pass for a plain `stop`.
    static func nullArgument(_ path: String) -> CaucusError {
        path.isEmpty
            ? notAnObject
            : CaucusError(.invalidArguments, "\"\(path)\" is null: leave out an argument that has no value.")
    }

    static func notAnInteger(_ path: String) -> CaucusError {
        path.isEmpty ? notAnObject : CaucusError(.invalidArguments, "\"\(path)\" must be \(integer).")
    }

    private struct IDOnly: Decodable { let id: Int? }

    /// The request's `id` when the frame is an object whose `id` is an integer.
    static func readableID(_ data: Data) -> Int? {
        (try? JSONDecoder().decode(IDOnly.self, from: data))?.id
    }

    static func describe(_ error: DecodingError) -> CaucusError {
        let context: DecodingError.Context
        switch error {
        case .typeMismatch(_, let found), .valueNotFound(_, let found), .dataCorrupted(let found): context = found
        case .keyNotFound(let key, let found):
            let parent = path(found.codingPath)
            return CaucusError(.invalidArguments, "Missing \"\(parent.isEmpty ? key.stringValue : parent + "." + key.stringValue)\".")
        @unknown default: return CaucusError(.invalidArguments, "The request's arguments are invalid.")
        }
        guard let first = context.codingPath.first else { return notAnObject }
        if first.stringValue == "id" && context.codingPath.count == 1 { return idError }
        let name = path(context.codingPath)
        if let last = context.codingPath.last(where: { $0.intValue == nil }), let allowed = allowedValues[last.stringValue] {
            let list = allowed.map { "\"\($0)\"" }.joined(separator: ", ")
            return CaucusError(.invalidArguments, "\"\(name)\" must be one of \(list).")
        }
        if case .typeMismatch(let type, _) = error {
            return CaucusError(.invalidArguments, "\"\(name)\" must be \(jsonType(of: type)).")
        }
        // `dataCorrupted` below the top: a number that is not an integer or does not fit.
        return CaucusError(.invalidArguments, "\"\(name)\" must be \(integer).")
    }

    private static let integer = "an integer (a whole number that fits in 64 bits)"

    private static func path(_ codingPath: [any CodingKey]) -> String {
        var text = ""
        for key in codingPath {
            if let index = key.intValue {
                text += "[\(index)]"
            } else {
                text += (text.isEmpty ? "" : ".") + key.stringValue
            }
        }
        return text
    }

    /// JSON's name for what a Swift type is decoded from.
    private static func jsonType(of type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Int.Type, is Int64.Type: integer
        case is Bool.Type: "true or false"
        case is [Any].Type: "an array"
        case is [String: Any].Type: "an object"
        default: "another JSON type"
        }
    }
}
