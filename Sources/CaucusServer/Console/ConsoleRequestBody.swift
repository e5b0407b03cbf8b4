import CaucusCore
import CaucusJSONSyntax
import Foundation
import Hummingbird
import HummingbirdCore

/// Reads a console endpoint's JSON body as strictly as the WebSocket protocol reads a frame:
/// a body over the frame limit is 1003 `frameTooLarge` (413), a text that is not strict JSON
/// (a key given twice, a trailing comma, …) 1001 `malformedFrame`, and a valid text of the
/// wrong shape 1004 `invalidArguments` naming the shape it takes. None of them is a server failure.
enum ConsoleRequestBody {
    static func decode<Body: ConsoleRequest>(
        _ type: Body.Type, from request: HummingbirdCore.Request, limit: Int
    ) async throws(CaucusError) -> Body {
        let shape = Body.shape
        let data: Data
        do {
            data = Data(buffer: try await request.body.collect(upTo: limit))
        } catch let error as any HTTPResponseError where error.status == .contentTooLarge {
            throw CaucusError(.frameTooLarge, "The request body is larger than \(limit) bytes.")
        } catch {
            throw CaucusError(.malformedFrame, "The request body could not be read to its end.")
        }
        do {
            // Its syntax only: where its nulls and numbers are is not kept.
            _ = try data.withUnsafeBytes { buffer throws(JSONSyntaxError) in try JSONSyntax.validate(buffer, recordingUnder: []) }
        } catch {
            throw CaucusError(.malformedFrame, "The request body is not strict JSON: \(error). Send \(shape).")
        }
        do {
            return try JSONDecoder().decode(Body.self, from: data)
        } catch {
            throw CaucusError(.invalidArguments, "Send \(shape).")
        }
    }
}

/// A console endpoint's request body, and the shape its refusals name.
protocol ConsoleRequest: Decodable, Sendable {
    static var shape: String { get }
}
