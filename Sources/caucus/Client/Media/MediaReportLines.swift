import Foundation

/// The once-a-second report of `caucus client`'s received media, as the lines it prints.
enum MediaReportLines {
    /// The JSON form: one object per line, `{"media": [rows]}` (users in ID order; a kind the
    /// user did not send in the last second is left out), for programs and tests.
    static func json(_ rows: [ReceivedMediaMeter.Row]) -> String {
        struct Line: Encodable { let media: [ReceivedMediaMeter.Row] }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Rows hold strings, numbers and optionals only: encoding them cannot fail.
        guard let data = try? encoder.encode(Line(media: rows)) else { return #"{"media":[]}"# }
        return String(decoding: data, as: UTF8.self)
    }

    /// The text form: a line per user, `media Ann (u2): video 15 fps 320x240, audio 50 fps
    /// -11.3 dBFS`; nothing when nothing arrived.
    static func text(_ rows: [ReceivedMediaMeter.Row]) -> [String] {
        rows.map { row in
            var parts: [String] = []
            if let video = row.video { parts.append("video \(number(video.fps)) fps \(video.width)x\(video.height)") }
            if let share = row.screenShare { parts.append("screen share \(number(share.fps)) fps \(share.width)x\(share.height)") }
            if let audio = row.audio { parts.append("audio \(number(audio.fps)) fps \(number(audio.dBFS)) dBFS") }
            if row.undecodable > 0 { parts.append("\(row.undecodable) frames undecodable") }
            return "media \(row.name) (\(row.user)): " + parts.joined(separator: ", ")
        }
    }

    /// One decimal, none when it is zero (`15`, `14.5`, `-11.3`).
    static func number(_ value: Double) -> String {
        let tenths = (value * 10).rounded()
        return tenths.truncatingRemainder(dividingBy: 10) == 0 ? "\(Int(tenths / 10))" : "\(tenths / 10)"
    }
}
