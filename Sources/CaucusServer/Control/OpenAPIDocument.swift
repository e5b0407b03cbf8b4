import CaucusProtocol

/// The control API's OpenAPI document, served at `/openapi.json`. `ControlAPITests` checks
/// that every path here answers and every route answers here; `ControlRouterTests` that the
/// operations, bounds and methods are the server's own.
enum OpenAPIDocument {
    /// The operations `POST /v1/sessions/{id}/operations` runs: every command and
    /// `updateSettings`; not the connection's own requests (media is a connected user's), nor the
    /// reads, nor what acts on the caller's own seat (always refused there, 3006).
    static let operations: [String] = {
        let connectionOnly = [Operation.join, .resume, .ping, .mediaOffer, .getIceServers].map(\.rawValue)
        let notHere = Set(Query.allCases.map(\.rawValue) + connectionOnly + ownSeat.map(\.rawValue))
        return Operation.allCases.map(\.rawValue).filter { !notHere.contains($0) }
    }()

    /// The operations whose commands act on the caller's own seat (`Command.needsOwnSeat`):
    /// nobody's over HTTP. `ControlRouterTests` checks this list against the commands they decode to.
    static let ownSeat: Set<Operation> = [
        .leave, .joinRoom, .returnToMain, .disconnect, .requestHelp, .answerHelp, .acceptInvitation, .rejectInvitation, .chat,
        .publish, .muteUser, .startVoiceBroadcast, .listenIn, .stopListening,
    ]

    /// The largest id a path takes: ids are positive 64-bit integers.
    static let maximumID = Int64.max

    static let json = #"""
{
  "openapi": "3.1.0",
  "info": {
    "title": "Caucus control API",
    "version": "1.0.0",
    "description": "Server-side control of an app's Caucus sessions. Authenticate with HTTP Basic: the app key as user name, the app secret as password. Errors are {\"error\": {\"code\", \"name\", \"message\"}} with the codes of docs/errors.md."
  },
  "servers": [{"url": "http://127.0.0.1:8080"}],
  "components": {
    "securitySchemes": {"app": {"type": "http", "scheme": "basic"}},
    "schemas": {
      "Error": {
        "type": "object",
        "required": ["error"],
        "properties": {
          "error": {
            "type": "object",
            "required": ["code", "name", "message"],
            "properties": {
              "code": {"type": "integer"},
              "name": {"type": "string"},
              "message": {"type": "string"},
              "status": {"type": "string", "description": "For a refused commit, withdraw, start or stop: commitFailed, withdrawFailed, startFailed or stopFailed."}
            }
          }
        }
      },
      "Seq": {"type": "object", "properties": {"seq": {"type": ["integer", "null"], "description": "The sequence number of the last event the operation caused."}}},
      "SessionSummary": {
        "type": "object",
        "required": ["id", "name", "createdAt", "seq"],
        "properties": {
          "id": {"type": "integer"}, "name": {"type": "string"}, "createdAt": {"type": "integer", "description": "Unix milliseconds"},
          "users": {"type": "integer", "description": "Absent for a session another node serves"},
          "status": {"type": "string", "description": "Absent for a session another node serves"}, "seq": {"type": "integer"},
          "node": {"type": "string", "description": "Several nodes: the URL of the node serving the session"}
        }
      },
      "Session": {
        "type": "object",
        "description": "A live session: users (with role, location, presence), the committed list with each room's occupants, the pre-list, settings, pending help requests and invitations, who broadcasts voice and who listens in. The shapes are those of docs/protocol.md.",
        "required": ["id", "name", "seq", "users", "breakout"],
        "properties": {
          "id": {"type": "integer"}, "name": {"type": "string"}, "createdAt": {"type": "integer"}, "seq": {"type": "integer"},
          "hostID": {"type": ["integer", "null"]}, "mode": {"type": "string", "enum": ["group", "lecture"]},
          "settings": {"type": "object"}, "users": {"type": "array", "items": {"type": "object"}},
          "breakout": {"type": "object"}, "preList": {"type": "array", "items": {"type": "object"}},
          "helpRequests": {"type": "array", "items": {"type": "object"}},
          "voiceBroadcaster": {"type": "integer", "description": "Who broadcasts its voice to every room; absent if nobody"},
          "listeners": {"type": "array", "description": "Who listens in to which room, in the order they began", "items": {"type": "object", "required": ["user", "room"], "properties": {"user": {"type": "integer"}, "room": {"type": "integer"}}}},
          "invitations": {"type": "array", "description": "Pending invitations to rooms, by user", "items": {"type": "object", "required": ["user", "room"], "properties": {"user": {"type": "integer"}, "room": {"type": "integer"}}}},
          "recording": {"type": "object", "description": "What the session records; absent when nothing is recorded and the server made no stop of its own", "required": ["locations", "everyRoom", "recorded"], "properties": {
            "locations": {"type": "array", "description": "Locations chosen one by one: room ids, null for the main session", "items": {"type": ["integer", "null"]}},
            "everyRoom": {"type": "boolean", "description": "Every room is recorded, rooms created later included"},
            "recorded": {"type": "array", "description": "Every location recorded now", "items": {"type": ["integer", "null"]}},
            "stopped": {"type": "object", "description": "The server's last stop of its own (it could not write the files), until recording is next started or stopped; absent when none", "required": ["locations", "reason"], "properties": {
              "locations": {"type": "array", "description": "The locations it stopped recording: room ids, null for the main session", "items": {"type": ["integer", "null"]}},
              "reason": {"type": "string", "enum": ["diskFull", "quotaExceeded", "writeFailed"]}}}}}
        }
      },
      "RecordingTarget": {
        "type": "object",
        "description": "Either locations (room ids, null for the main session; each once) or all: true. Starting all records every room, rooms created later included; stopping all stops everything, the main session too.",
        "properties": {
          "locations": {"type": "array", "minItems": 1, "items": {"type": ["integer", "null"]}},
          "all": {"type": "boolean", "enum": [true]}
        }
      },
      "Operation": {
        "type": "object",
        "required": ["op"],
        "description": "The same JSON as a WebSocket request, without id: e.g. {\"op\": \"start\", \"durationSeconds\": 600, \"autoAssign\": true}. Every command of docs/protocol.md that does not act on the caller's own seat is allowed, with host authority.",
        "properties": {"op": {"type": "string", "enum": [\#(operations.map { "\"\($0)\"" }.joined(separator: ", "))]}},
        "additionalProperties": true
      },
      "Recordings": {
        "type": "object",
        "description": "A session's recordings on this node (docs/recording.md): one WebM file per publisher, kind and resolution, and a timeline per location.",
        "required": ["session", "recordings", "timelines"],
        "properties": {
          "session": {"type": "integer"},
          "recordings": {"type": "array", "items": {
            "type": "object",
            "required": ["location", "file", "size", "ended", "url"],
            "properties": {
              "location": {"type": "string", "description": "main or room-<id>"},
              "file": {"type": "string"}, "user": {"type": "string", "description": "Absent when the timeline does not name the file"},
              "kind": {"type": "string", "enum": ["audio", "video", "screen"]}, "codec": {"type": "string", "enum": ["opus", "vp8", "h264"]},
              "start": {"type": "integer", "description": "Milliseconds on the location's clock where the file's time 0 lies (the timeline's fileStarted t)"},
              "startedAt": {"type": "integer", "description": "Unix milliseconds of start"},
              "duration": {"type": "integer", "description": "Milliseconds: the timeline's fileEnded, else the file's header (still recording, or cut off by a crash)"},
              "size": {"type": "integer", "description": "Bytes"}, "ended": {"type": "boolean", "description": "Whether the timeline says the file ended"},
              "url": {"type": "string", "description": "Its path on this server"}
            }
          }},
          "timelines": {"type": "array", "description": "The timelines of the locations whose part of the listing begins on this page (each on one page only)", "items": {"type": "object", "required": ["location", "file", "size", "url"], "properties": {
            "location": {"type": "string"}, "file": {"type": "string", "const": "timeline.jsonl"}, "size": {"type": "integer"}, "url": {"type": "string"}}}},
          "next": {"type": "string", "description": "Present when more of the listing remains: pass it as after for the next page"}
        }
      },
      "RecordingsDeleted": {
        "type": "object",
        "required": ["session", "deleted"],
        "properties": {"session": {"type": "integer"}, "deleted": {"type": "array", "description": "The locations whose folders were deleted", "items": {"type": "string"}}}
      },
      "History": {
        "type": "object",
        "properties": {
          "sessions": {
            "type": "array",
            "items": {
              "type": "object",
              "properties": {
                "id": {"type": "integer"}, "app": {"type": "string"}, "name": {"type": "string"},
                "startedAt": {"type": "integer"}, "endedAt": {"type": ["integer", "null"]}, "endReason": {"type": ["string", "null"]},
                "users": {"type": "array", "items": {"type": "object", "properties": {
                  "userID": {"type": "integer"}, "name": {"type": "string"}, "joinedAt": {"type": "integer"},
                  "leftAt": {"type": ["integer", "null"]}, "leaveReason": {"type": ["string", "null"]}}}}
              }
            }
          }
        }
      }
    },
    "responses": {
      "Error": {"description": "Refused; nothing changed.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}},
      "OtherNode": {"description": "Several nodes: another node serves the session (only ever for the asking app's own session). Repeat the same request (method, credentials, body) at the Location header's URL.", "headers": {"Location": {"schema": {"type": "string"}}}}
    },
    "parameters": {
      "session": {"name": "id", "in": "path", "required": true, "schema": {"type": "integer", "minimum": 1, "maximum": \#(maximumID)}, "description": "The session's id, from GET /v1/sessions."},
      "recordingLocation": {"name": "location", "in": "path", "required": true, "schema": {"type": "string", "pattern": "^(main|room-[1-9][0-9]*)$"}, "description": "main, or room-<id> for a breakout room."}
    }
  },
  "security": [{"app": []}],
  "paths": {
    "/healthz": {
      "get": {"summary": "Health: 503 while the shared store does not answer this node (several nodes)", "security": [], "responses": {"200": {"description": "Up: {\"status\": \"ok\"}", "content": {"application/json": {"schema": {"type": "object"}}}}, "503": {"description": "Several nodes: the store has not answered this node for three quarters of a lease; it has given its sessions up. {\"status\": \"storeUnreachable\", \"reason\": …}", "content": {"application/json": {"schema": {"type": "object"}}}}}}
    },
    "/readyz": {
      "get": {"summary": "Readiness, for a load balancer: 200 while this node takes new clients", "security": [], "responses": {"200": {"description": "Ready: {\"status\": \"ready\"}", "content": {"application/json": {"schema": {"type": "object"}}}}, "503": {"description": "Not ready: {\"status\": \"storeUnreachable\"} (several nodes: the store does not answer this node) or {\"status\": \"stopping\"} (shutting down)", "content": {"application/json": {"schema": {"type": "object"}}}}}}
    },
    "/metrics": {
      "get": {"summary": "Prometheus metrics", "security": [], "responses": {"200": {"description": "Prometheus text format", "content": {"text/plain": {"schema": {"type": "string"}}}}}}
    },
    "/openapi.json": {
      "get": {"summary": "This document", "security": [], "responses": {"200": {"description": "OpenAPI 3.1", "content": {"application/json": {"schema": {"type": "object"}}}}}}
    },
    "/v1/sessions": {
      "get": {
        "summary": "The app's live sessions",
        "responses": {
          "200": {"description": "Live sessions", "content": {"application/json": {"schema": {"type": "object", "properties": {"sessions": {"type": "array", "items": {"$ref": "#/components/schemas/SessionSummary"}}}}}}},
          "401": {"$ref": "#/components/responses/Error"}
        }
      }
    },
    "/v1/sessions/{id}": {
      "parameters": [{"$ref": "#/components/parameters/session"}],
      "get": {
        "summary": "One session's users, rooms and status",
        "responses": {
          "200": {"description": "The session", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Session"}}}},
          "401": {"$ref": "#/components/responses/Error"}, "307": {"$ref": "#/components/responses/OtherNode"}, "404": {"$ref": "#/components/responses/Error"}
        }
      },
      "delete": {
        "summary": "End the session for everyone",
        "responses": {
          "200": {"description": "Ended", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Seq"}}}},
          "401": {"$ref": "#/components/responses/Error"}, "307": {"$ref": "#/components/responses/OtherNode"}, "404": {"$ref": "#/components/responses/Error"}, "409": {"$ref": "#/components/responses/Error"}
        }
      }
    },
    "/v1/sessions/{id}/users/{user}": {
      "parameters": [{"$ref": "#/components/parameters/session"}, {"name": "user", "in": "path", "required": true, "schema": {"type": "integer", "minimum": 1, "maximum": \#(maximumID)}}],
      "delete": {
        "summary": "Remove a user",
        "responses": {
          "200": {"description": "Removed", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Seq"}}}},
          "400": {"$ref": "#/components/responses/Error"}, "401": {"$ref": "#/components/responses/Error"}, "307": {"$ref": "#/components/responses/OtherNode"}, "404": {"$ref": "#/components/responses/Error"}
        }
      }
    },
    "/v1/sessions/{id}/operations": {
      "parameters": [{"$ref": "#/components/parameters/session"}],
      "post": {
        "summary": "Run any host or manager operation (pre-list, commit, start, stop, assign, broadcast, create rooms, invite, pause, destroy, settings…)",
        "requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Operation"}}}},
        "responses": {
          "200": {"description": "Done", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Seq"}}}},
          "400": {"$ref": "#/components/responses/Error"}, "401": {"$ref": "#/components/responses/Error"},
          "403": {"$ref": "#/components/responses/Error"}, "307": {"$ref": "#/components/responses/OtherNode"}, "404": {"$ref": "#/components/responses/Error"}, "409": {"$ref": "#/components/responses/Error"}
        }
      }
    },
    "/v1/sessions/{id}/recordings": {
      "parameters": [{"$ref": "#/components/parameters/session"}],
      "get": {
        "summary": "The session's recordings on this node, a page at a time: every file with its location, user, kind, start, duration and size, and each location's timeline. Ordered by location (main, then rooms by id), then start, then name. Also after the session has ended.",
        "parameters": [
          {"name": "limit", "in": "query", "required": false, "schema": {"type": "integer", "minimum": 1, "maximum": 1000, "default": 1000}, "description": "At most this many files on the page"},
          {"name": "after", "in": "query", "required": false, "schema": {"type": "string"}, "description": "The next of the page before, as it was given"}
        ],
        "responses": {
          "200": {"description": "The recordings (empty lists for a live session with none)", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Recordings"}}}},
          "400": {"$ref": "#/components/responses/Error"}, "401": {"$ref": "#/components/responses/Error"}, "404": {"$ref": "#/components/responses/Error"}
        }
      },
      "delete": {
        "summary": "Delete every location's recordings of the session on this node (409 while a location is being recorded)",
        "responses": {
          "200": {"description": "Deleted", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/RecordingsDeleted"}}}},
          "401": {"$ref": "#/components/responses/Error"}, "404": {"$ref": "#/components/responses/Error"}, "409": {"$ref": "#/components/responses/Error"}
        }
      }
    },
    "/v1/sessions/{id}/recordings/{location}": {
      "parameters": [{"$ref": "#/components/parameters/session"}, {"$ref": "#/components/parameters/recordingLocation"}],
      "delete": {
        "summary": "Delete one location's recordings (its files and timeline; 409 while it is being recorded)",
        "responses": {
          "200": {"description": "Deleted", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/RecordingsDeleted"}}}},
          "400": {"$ref": "#/components/responses/Error"}, "401": {"$ref": "#/components/responses/Error"}, "404": {"$ref": "#/components/responses/Error"}, "409": {"$ref": "#/components/responses/Error"}
        }
      }
    },
    "/v1/sessions/{id}/recordings/{location}/{file}": {
      "parameters": [
        {"$ref": "#/components/parameters/session"}, {"$ref": "#/components/parameters/recordingLocation"},
        {"name": "file", "in": "path", "required": true, "schema": {"type": "string", "pattern": "^(timeline\\.jsonl|[A-Za-z0-9_-]+\\.(webm|mkv))$"}, "description": "A file name from GET /v1/sessions/{id}/recordings."}
      ],
      "get": {
        "summary": "One recorded file (video/webm, audio/webm; video/x-matroska for H.264) or a location's timeline (application/jsonl), streamed. One byte range (Range: bytes=first-last, first- or -suffix) is served as 206; several ranges get the whole file.",
        "parameters": [{"name": "Range", "in": "header", "required": false, "schema": {"type": "string"}, "description": "bytes=first-last, bytes=first- or bytes=-suffix"}],
        "responses": {
          "200": {"description": "The whole file", "headers": {"Accept-Ranges": {"schema": {"type": "string", "const": "bytes"}}}, "content": {"video/webm": {"schema": {"type": "string", "format": "binary"}}, "video/x-matroska": {"schema": {"type": "string", "format": "binary"}}, "audio/webm": {"schema": {"type": "string", "format": "binary"}}, "application/jsonl": {"schema": {"type": "string"}}}},
          "206": {"description": "The range asked", "headers": {"Content-Range": {"schema": {"type": "string"}, "description": "bytes first-last/size"}}, "content": {"video/webm": {"schema": {"type": "string", "format": "binary"}}, "video/x-matroska": {"schema": {"type": "string", "format": "binary"}}, "audio/webm": {"schema": {"type": "string", "format": "binary"}}, "application/jsonl": {"schema": {"type": "string"}}}},
          "400": {"$ref": "#/components/responses/Error"}, "401": {"$ref": "#/components/responses/Error"}, "404": {"$ref": "#/components/responses/Error"},
          "416": {"description": "The range lies past the file's end; Content-Range: bytes */size", "headers": {"Content-Range": {"schema": {"type": "string"}}}, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}
        }
      }
    },
    "/v1/sessions/{id}/recording/start": {
      "parameters": [{"$ref": "#/components/parameters/session"}],
      "post": {
        "summary": "Start recording the main session, chosen rooms, or every room (startRecording); everyone in a recorded location is told",
        "requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/RecordingTarget"}}}},
        "responses": {
          "200": {"description": "Recording", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Seq"}}}},
          "400": {"$ref": "#/components/responses/Error"}, "401": {"$ref": "#/components/responses/Error"}, "307": {"$ref": "#/components/responses/OtherNode"}, "404": {"$ref": "#/components/responses/Error"}
        }
      }
    },
    "/v1/sessions/{id}/recording/stop": {
      "parameters": [{"$ref": "#/components/parameters/session"}],
      "post": {
        "summary": "Stop recording chosen locations, or everything (stopRecording)",
        "requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/RecordingTarget"}}}},
        "responses": {
          "200": {"description": "Stopped", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Seq"}}}},
          "400": {"$ref": "#/components/responses/Error"}, "401": {"$ref": "#/components/responses/Error"}, "307": {"$ref": "#/components/responses/OtherNode"}, "404": {"$ref": "#/components/responses/Error"}
        }
      }
    },
    "/v1/history": {
      "get": {
        "summary": "Session history, newest first",
        "parameters": [{"name": "limit", "in": "query", "required": false, "schema": {"type": "integer", "minimum": 1, "maximum": 1000, "default": 50}}],
        "responses": {
          "200": {"description": "Sessions with start and end, users with join and leave times", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/History"}}}},
          "400": {"$ref": "#/components/responses/Error"}, "401": {"$ref": "#/components/responses/Error"}
        }
      }
    }
  }
}
"""#
}
