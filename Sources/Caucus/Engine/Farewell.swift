import CaucusCore
import CaucusProtocol
import Foundation

/// The shell of a `FarewellMachine`: it owns its sockets and touches no session state, so the
/// session object is free to join again meanwhile (as a new user). One loop takes the
/// machine's inputs in order (sockets opened or failed, frames, closes, timers) from tasks
/// that open, read and sleep, and carries out the actions until the machine is finished.
struct Farewell: Sendable {
    let plan: SessionMachine.FarewellPlan
    let configuration: CaucusSession.Configuration

    private enum Input: Sendable {
        case opened(Socket, attempt: Int)
        case failed(attempt: Int)
        case frame(ServerFrame?, socket: Int)
        case closed(socket: Int, code: UInt16?)
        case timer(FarewellMachine.Timer)
    }

    func run() async {
        var machine = FarewellMachine(plan: plan, connectTimeout: configuration.connectTimeout, seed: .random(in: 0...UInt64.max))
        let (inputs, input) = AsyncStream.makeStream(of: Input.self)
        var sockets: [Int: Socket] = [:]
        var tasks: [Task<Void, Never>] = []
        defer {
            input.finish()
            for task in tasks { task.cancel() }
            for socket in sockets.values { socket.abandon() }
        }
        var actions = machine.start(at: .now)
        var inputIterator = inputs.makeAsyncIterator()
        while !Task.isCancelled {
            for action in actions {
                switch action {
                case .open(let url, let attempt):
                    let configuration = configuration
                    tasks.append(
                        Task {
                            do throws(SessionError) {
                                input.yield(.opened(try await Socket.connect(to: url, configuration: configuration), attempt: attempt))
                            } catch {
                                input.yield(.failed(attempt: attempt))
                            }
                        })
                case .send(let socket, let text):
                    sockets[socket]?.send(text)
                case .close(let socket):
                    sockets.removeValue(forKey: socket)?.close()
                case .abandon(let socket):
                    sockets.removeValue(forKey: socket)?.abandon()
                case .schedule(let timer, let instant):
                    tasks.append(
                        Task {
                            try? await Task.sleep(until: instant, clock: .continuous)
                            if !Task.isCancelled { input.yield(.timer(timer)) }
                        })
                case .log(let message):
                    configuration.logger.info("\(message)")
                case .finished:
                    return
                }
            }
            guard let next = await inputIterator.next() else { return }
            switch next {
            case .opened(let socket, let attempt):
                sockets[socket.id] = socket
                tasks.append(Task { await Self.read(socket, into: input) })
                actions = machine.socketOpened(socket.id, attempt: attempt, at: .now)
            case .failed(let attempt):
                actions = machine.socketFailed(attempt: attempt, at: .now)
            case .frame(let frame, let socket):
                actions = machine.received(frame, on: socket, at: .now)
            case .closed(let socket, let code):
                sockets[socket] = nil
                actions = machine.socketClosed(socket, code: code, at: .now)
            case .timer(let timer):
                actions = machine.timerFired(timer, at: .now)
            }
        }
    }

    private static func read(_ socket: Socket, into input: AsyncStream<Input>.Continuation) async {
        let decoder = JSONDecoder()
        for await item in socket.inbound {
            switch item {
            case .text(let text): input.yield(.frame(try? decoder.decode(ServerFrame.self, from: Data(text.utf8)), socket: socket.id))
            case .closed(let code, _): input.yield(.closed(socket: socket.id, code: code))
            }
        }
    }
}
