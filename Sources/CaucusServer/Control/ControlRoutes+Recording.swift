import CaucusCore
import CaucusProtocol
import Foundation
import Hummingbird
import HummingbirdCore

/// Starting and stopping a session's recording from an app's server:
/// `POST /v1/sessions/{id}/recording/start` and `…/recording/stop`, each with
/// `{"locations": [null, 2]}` (null: the main session) or `{"all": true}`. They run
/// `startRecording`/`stopRecording` with host authority, as `POST …/operations` would.
extension SessionServer {
    func recording(
        _ operation: CaucusProtocol.Operation, _ request: HummingbirdCore.Request, _ context: BasicRequestContext
    ) async throws -> Response {
        try await control(request) { app in
            let session = try await self.session(context, app)
            let body = try await request.body.collect(upTo: self.configuration.maxFrameBytes)
            let command = try Self.recordingCommand(operation, body: Data(buffer: body))
            return Self.json(["seq": try await session.perform(command, by: .server)])
        }
    }

    /// The body read as the WebSocket request `{"op": …, …}` would be, so that the same
    /// checks (strict JSON, types, `all` or `locations`) give the same errors.
    static func recordingCommand(_ operation: CaucusProtocol.Operation, body: Data) throws -> Command {
        let text = String(decoding: body, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard text.first == "{" else {
            throw CaucusError(.malformedFrame, "The body must be a JSON object: {\"locations\": [...]} or {\"all\": true}.")
        }
        let rest = text.dropFirst().trimmingCharacters(in: .whitespacesAndNewlines)
        let separator = rest.first == "}" ? "" : ","
        let framed = "{\"op\":\"\(operation.rawValue)\"\(separator)" + text.dropFirst()
        let decoded: CaucusProtocol.Request
        switch Result(catching: { () throws(FrameError) in try ClientFrame.decodeOperation(Data(framed.utf8)) }) {
        case .success(let request): decoded = request
        case .failure(let failure): throw failure.error
        }
        guard case .command(let command) = decoded else {
            throw CaucusError(.invalidArguments, "The body names \(operation.rawValue) arguments only.")
        }
        return command
    }
}
