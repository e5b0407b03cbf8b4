import Foundation  // errno's names (ECONNREFUSED…), from the platform's C library through Foundation
import NIOCore
import WSClient

#if !canImport(Network)
import NIOPosix
#endif

/// Why an opening failed, in an app's words rather than SwiftNIO's ("Inappropriate operation
/// for state", "connection reset (error set): Connection refused (errno: 111)"): what
/// happened, where, and what usually causes it. TLS failures have their own words
/// (`TLSFailure`); anything not recognised keeps its own description.
enum ConnectionFailure {
    static func words(for error: any Error, url: String) -> String {
        let parsed = URL(string: url)
        let place = parsed.map { "\($0.host ?? url)\($0.port.map { ":\($0)" } ?? "")" } ?? url
        #if !canImport(Network)
        if let attempt = error as? NIOConnectionError {
            if attempt.connectionErrors.isEmpty, attempt.dnsAError != nil || attempt.dnsAAAAError != nil {
                return "the host name \(attempt.host) could not be resolved (check the server's URL, or the network)"
            }
            if let first = attempt.connectionErrors.first { return words(for: first.error, url: url) }
        }
        #endif
        if let io = error as? IOError { return words(errno: io.errnoCode, at: place) ?? "a network error at \(place): \(io.description)" }
        if let channel = error as? ChannelError {
            switch channel {
            case .connectTimeout: return "no answer from \(place) in time (a firewall may be dropping the connection)"
            case .ioOnClosedChannel, .inappropriateOperationForState, .alreadyClosed, .eof, .outputClosed, .inputClosed:
                return "the connection to \(place) closed before the WebSocket upgrade (a proxy or the server ended it)"
            default: break
            }
        }
        if let websocket = error as? WebSocketClientError {
            switch websocket {
            case .webSocketUpgradeFailed:
                return "\(place) answered, but not with a WebSocket upgrade (is it a Caucus server, and does the URL end in /ws?)"
            case .invalidURL: return "\(url) is not a ws:// or wss:// URL"
            default: break
            }
        }
        return "\(error)"
    }

    private static func words(errno code: Int32, at place: String) -> String? {
        switch code {
        case ECONNREFUSED: "nothing accepts connections at \(place) (connection refused: is the server running, on that port?)"
        case ECONNRESET, EPIPE: "the connection to \(place) was reset (a proxy or firewall may have cut it)"
        case ETIMEDOUT: "no answer from \(place) in time (a firewall may be dropping the connection)"
        case ENETUNREACH, EHOSTUNREACH, ENETDOWN: "\(place) cannot be reached from this network (no route)"
        default: nil
        }
    }
}
