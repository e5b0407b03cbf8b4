import CaucusMedia

/// Maps the RTP timestamps of every recorded track of one location onto the location's clock,
/// so that two people who clapped together are together in the files. Pure: reports and their
/// arrival times come in as inputs.
///
/// Two steps, each from RTCP sender reports (RFC 3550 §6.4.1):
/// 1. RTP time to the publisher's own wall clock: a report pairs an NTP time with the RTP
///    timestamp of the same instant, on that track's clock rate. Audio and video of one
///    publisher share the publisher's wall clock, which is what lip sync rests on. A sender
///    that stamps a report late (its wall time read after the packet was sent) is caught by
///    taking, of the track's last ``offsetWindow`` reports, the one that places it earliest.
/// 2. The publisher's wall clock to the location's clock (the server's, in microseconds from
///    an origin the caller picks): publishers' clocks disagree by seconds, so the offset is
///    measured as the report's arrival time minus its NTP time. Network delay only adds to it,
///    so the smallest offset of the publisher's last ``offsetWindow`` reports (of all its
///    tracks) is the best estimate; it follows a drifting clock as old reports leave the window.
///
/// A track has no mapping until its first sender report; a recorder holds its frames until then.
public struct LocationClock: Sendable {
    /// How many of a publisher's latest reports its offset is the smallest of.
    public let offsetWindow: Int

    private struct Anchor: Sendable {
        var publisher: String
        var clockRate: Int64
        var senderMicroseconds: Int64
        var rtpTimestamp: UInt32
    }

    /// Per track: its latest reports (at most ``offsetWindow``), oldest first.
    private var reports: [UInt32: [Anchor]] = [:]
    /// Per track: the report its timestamps map through (``earliestAnchor(of:)``).
    private var anchors: [UInt32: Anchor] = [:]
    /// Per publisher: arrival minus sender time of its latest reports, oldest first.
    private var offsets: [String: [Int64]] = [:]
    /// Per track: its anchor with its publisher's offset applied, redone at every report of the
    /// publisher: what ``time(ofRTP:ssrc:)`` reads per frame (one lookup, plain values).
    private var mappings: [UInt32: Mapping] = [:]

    /// How one track's RTP timestamps map onto the location's clock, as the clock has it now:
    /// plain values, which a caller may keep for a track between reports (one that changes
    /// with every ``receive(_:publisher:clockRate:arrival:)`` and ``forget(publisher:)``)
    /// instead of copying the whole clock for every packet.
    public struct Mapping: Hashable, Sendable {
        public let ssrc: UInt32
        let clockRate: Int64
        let rtpTimestamp: UInt32
        /// The location-clock time of `rtpTimestamp`, in microseconds.
        let time: Int64

        /// The location-clock time (µs) of the track's RTP timestamp `rtpTimestamp`.
        public func time(ofRTP rtpTimestamp: UInt32) -> Int64 {
            let ticks = Int64(Int32(bitPattern: rtpTimestamp &- self.rtpTimestamp))
            return time + ticks * 1_000_000 / clockRate
        }
    }

    public init(offsetWindow: Int = 16) {
        self.offsetWindow = max(offsetWindow, 1)
    }

    /// Takes a sender report of one of `publisher`'s tracks, `clockRate` its RTP clock (48,000
    /// for Opus, 90,000 for video), `arrival` when it arrived on the location's clock (µs).
    /// A report whose NTP time is zero (a sender without a wall clock, RFC 3550 §6.4.1) or a
    /// zero clock rate is refused and changes nothing.
    public mutating func receive(
        _ report: RTCPSenderReport, publisher: String, clockRate: Int, arrival: Int64
    ) throws(LocationClockError) {
        guard clockRate > 0 else { throw .invalidClockRate(clockRate) }
        guard report.ntpTimestamp != 0 else { throw .noWallClock(ssrc: report.ssrc) }
        let sender = Self.microseconds(ntp: report.ntpTimestamp)
        var recent = reports[report.ssrc, default: []]
        recent.append(Anchor(
            publisher: publisher, clockRate: Int64(clockRate), senderMicroseconds: sender, rtpTimestamp: report.rtpTimestamp))
        if recent.count > offsetWindow { recent.removeFirst(recent.count - offsetWindow) }
        reports[report.ssrc] = recent
        anchors[report.ssrc] = Self.earliestAnchor(of: recent)
        var samples = offsets[publisher, default: []]
        samples.append(arrival - sender)
        if samples.count > offsetWindow { samples.removeFirst(samples.count - offsetWindow) }
        offsets[publisher] = samples
        let offset = samples.min() ?? 0
        for (ssrc, anchor) in anchors where anchor.publisher == publisher {
            mappings[ssrc] = Mapping(
                ssrc: ssrc, clockRate: anchor.clockRate, rtpTimestamp: anchor.rtpTimestamp, time: anchor.senderMicroseconds + offset)
        }
    }

    /// Forgets `publisher`'s tracks and offsets: it left the location, or stopped being
    /// recorded there. A location outlives many comings and goings; what it keeps is then its
    /// present publishers', and a publisher that comes back is placed by its new reports alone
    /// (its wall clock may have been set meanwhile, which the smallest of its old offsets would
    /// hide until they left the window).
    public mutating func forget(publisher: String) {
        let tracks = anchors.filter { $0.value.publisher == publisher }.map(\.key)
        for ssrc in tracks {
            reports[ssrc] = nil
            anchors[ssrc] = nil
            mappings[ssrc] = nil
        }
        offsets[publisher] = nil
    }

    /// Whether `ssrc` has had a sender report, so its timestamps map.
    public func isMapped(_ ssrc: UInt32) -> Bool {
        mappings[ssrc] != nil
    }

    /// The location-clock time (µs) of RTP timestamp `rtpTimestamp` of track `ssrc`, or nil
    /// before its first sender report. Timestamps within 2^31 ticks of the report's either
    /// way map (half a day of audio, six hours of video), across the 32-bit wrap.
    public func time(ofRTP rtpTimestamp: UInt32, ssrc: UInt32) -> Int64? {
        mappings[ssrc]?.time(ofRTP: rtpTimestamp)
    }

    /// Track `ssrc`'s mapping now, or nil before its first sender report.
    public func mapping(of ssrc: UInt32) -> Mapping? {
        mappings[ssrc]
    }

    /// How far a report may place a track from its latest report and still be taken as the
    /// same mapping stamped late; past it, the sender's RTP clock jumped (a paused source, a
    /// restarted encoder) and the latest report alone is followed.
    public static let lateReportLimit: Int64 = 250_000

    /// Of a track's recent reports, the one that places its RTP timestamps earliest. A sender may
    /// pair an RTP timestamp with the wall time at which it *sent* that packet rather than the
    /// one at which it was captured (aiortc reads its clock after the packet left, after the
    /// encoder and its event loop's delays), so each report may be late by a few to tens of ms,
    /// never early: the earliest is the best. Reports more than ``lateReportLimit`` from the
    /// latest one are of another mapping and left out.
    private static func earliestAnchor(of recent: [Anchor]) -> Anchor {
        let latest = recent[recent.count - 1]
        var best = latest
        var bestShift: Int64 = 0
        for anchor in recent {
            // Where this report places the latest one's RTP timestamp, against the latest's own time.
            let ticks = Int64(Int32(bitPattern: latest.rtpTimestamp &- anchor.rtpTimestamp))
            let shift = anchor.senderMicroseconds + ticks * 1_000_000 / anchor.clockRate - latest.senderMicroseconds
            if shift < bestShift, -shift <= lateReportLimit {
                best = anchor
                bestShift = shift
            }
        }
        return best
    }

    /// An NTP timestamp (seconds since 1900 in the high 32 bits, the fraction in the low) in
    /// microseconds.
    public static func microseconds(ntp: UInt64) -> Int64 {
        Int64(ntp >> 32) * 1_000_000 + Int64(((ntp & 0xFFFF_FFFF) * 1_000_000) >> 32)
    }
}

/// Why a sender report was not taken; the clock is unchanged.
public enum LocationClockError: Error, Hashable, Sendable {
    case invalidClockRate(Int)
    case noWallClock(ssrc: UInt32)
}
