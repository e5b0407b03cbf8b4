import CaucusMedia

/// The order in which one location's publishers deserve slots, as the speaker ranking last
/// published it: `audio` holds the speakers at the top (loudest first when it was published),
/// then earlier holders, most recently displaced first; `video` the same top, most recent
/// speaker first, then the earlier holders.
/// Publishers never heard are in neither list (they come after, in the session's order).
public struct SpeakerOrder: Hashable, Sendable {
    public var audio: [Int]
    public var video: [Int]

    public init(audio: [Int] = [], video: [Int] = []) {
        self.audio = audio
        self.video = video
    }

    public static let empty = SpeakerOrder()
}

/// One location's speakers, ranked from the RFC 6464 audio levels their packets carry, with
/// hysteresis so that two voices of similar loudness do not make the slots flap. A pure state
/// machine: levels arrive with their time (`hear`), and `evaluate(at:)`, called on a timer,
/// says when the published order changes.
///
/// - Each publisher's level is smoothed (exponentially, time constant `smoothing`); a level not
///   refreshed for `staleAfter` counts as silence (muted, or DTX sending nothing).
/// - `places` publishers hold the top. A free place, or one whose holder has not spoken for
///   `hang`, goes at once to the loudest speaker (smoothed level at least `speakingLevel`).
///   Otherwise a newcomer takes the place of the quietest holder only once it has been louder
///   than that holder by `margin` dB at every evaluation for `dwell`.
/// - The order is published at most once per `minimumInterval` (a due change waits), and only
///   when who holds the top changed or who of them speaks (spoke within `hang`) changed: a
///   holder who starts speaking comes first even when no place changes hands (a subscriber
///   with fewer audio slots than places hears it). What the router routes by and what the
///   `activeSpeakers` frame says are the same published value.
public struct SpeakerRanking: Sendable {
    public struct Configuration: Hashable, Sendable {
        /// How many speakers hold the top: the audio slots' count plus one, so that a
        /// subscriber who is one of them still hears that many others.
        public var places: Int
        /// The smoothed level, in −dBov as RFC 6464 writes it (0 loudest, 127 silence), at or
        /// below which a publisher counts as speaking.
        public var speakingLevel: UInt8
        /// How much louder, in dB, a newcomer must be than the quietest holder…
        public var margin: Double
        /// …and for how long, to take its place.
        public var dwell: Duration
        public var smoothing: Duration
        public var staleAfter: Duration
        public var minimumInterval: Duration
        /// How long after its last loud moment a holder still counts as speaking (a pause
        /// between words is no change).
        public var hang: Duration

        public init(
            places: Int = 4, speakingLevel: UInt8 = 60, margin: Double = 6, dwell: Duration = .milliseconds(150),
            smoothing: Duration = .milliseconds(80), staleAfter: Duration = .milliseconds(500), minimumInterval: Duration = .milliseconds(500),
            hang: Duration = .seconds(1)
        ) {
            precondition(places > 0 && margin >= 0 && smoothing > .zero, "a ranking needs places, a margin and a smoothing time")
            self.places = places
            self.speakingLevel = speakingLevel
            self.margin = margin
            self.dwell = dwell
            self.smoothing = smoothing
            self.staleAfter = staleAfter
            self.minimumInterval = minimumInterval
            self.hang = hang
        }

        public static let standard = Configuration()
    }

    struct Voice: Sendable {
        /// Smoothed loudness in dB above silence: 127 − level.
        var loudness: Double
        var lastHeard: Duration
        /// Since when it has been louder than the quietest holder by the margin; nil if not.
        var louderSince: Duration?
        /// When it last counted as speaking, at an evaluation.
        var lastSpoke: Duration?
    }

    public let configuration: Configuration
    private var voices: [Int: Voice] = [:]
    /// The holders of the top, in the order they took their places.
    private var holders: [Int] = []
    /// Earlier holders, most recently displaced first.
    private var formerHolders: [Int] = []
    private var publishedHolders: Set<Int> = []
    private var publishedSpeaking: Set<Int> = []
    private var lastPublished: Duration?
    /// The order as last published.
    public private(set) var order = SpeakerOrder.empty

    public init(configuration: Configuration = .standard) { self.configuration = configuration }

    /// The speakers holding the top as last published, loudest first (the `activeSpeakers` list).
    public var speakers: ArraySlice<Int> { order.audio.prefix(publishedHolders.count) }

    /// Whether nobody is heard or ranked.
    public var isEmpty: Bool { voices.isEmpty && holders.isEmpty && order == .empty }

    /// One packet's level: cheap enough for every audio packet (a dictionary update in place).
    public mutating func hear(_ publisher: Int, level: UInt8, at time: Duration) {
        let loudness = Double(127 - min(level, 127))
        // Changed in place, by index: one lookup per packet, not a read and a write.
        guard let index = voices.index(forKey: publisher) else {
            voices[publisher] = Voice(loudness: loudness, lastHeard: time)
            return
        }
        let elapsed = time - voices.values[index].lastHeard
        if elapsed > .zero {
            let weight = min(1, elapsed / configuration.smoothing)
            voices.values[index].loudness += (loudness - voices.values[index].loudness) * weight
            voices.values[index].lastHeard = time
        }
    }

    /// A publisher that left the location or stopped publishing audio: it leaves the ranking
    /// at the next publication.
    public mutating func forget(_ publisher: Int) {
        voices[publisher] = nil
        holders.removeAll { $0 == publisher }
        formerHolders.removeAll { $0 == publisher }
    }

    /// Forgets every publisher not in `publishers` (those the location does not forward).
    public mutating func retain(only publishers: Set<Int>) {
        for publisher in voices.keys where !publishers.contains(publisher) { forget(publisher) }
        for publisher in holders where !publishers.contains(publisher) { forget(publisher) }
    }

    /// The smoothed level of `publisher` now, in −dBov (127 when silent or unknown).
    public func level(of publisher: Int, at now: Duration) -> UInt8 {
        UInt8(127 - min(127, max(0, effectiveLoudness(of: publisher, at: now).rounded())))
    }

    /// Applies the rules at `now`; returns the new order when one is published (who holds the
    /// top changed, and the last publication is at least `minimumInterval` old).
    public mutating func evaluate(at now: Duration) -> SpeakerOrder? {
        let speaking = Double(127 - configuration.speakingLevel)
        for (publisher, voice) in voices where effectiveLoudness(voice, at: now) >= speaking {
            voices[publisher]?.lastSpoke = now
        }
        fillFreePlaces(speaking: speaking, at: now)
        replaceQuietestHolder(speaking: speaking, at: now)
        let speakingHolders = Set(holders.filter { isSpeaking($0, at: now) })
        guard Set(holders) != publishedHolders || speakingHolders != publishedSpeaking else { return nil }
        if let last = lastPublished, now - last < configuration.minimumInterval { return nil }
        lastPublished = now
        publishedHolders = Set(holders)
        publishedSpeaking = speakingHolders
        let audio = holders.sorted { (effectiveLoudness(of: $0, at: now), -$0) > (effectiveLoudness(of: $1, at: now), -$1) }
        let video = holders.sorted { (voices[$0]?.lastSpoke ?? .zero, -$0) > (voices[$1]?.lastSpoke ?? .zero, -$1) }
        order = SpeakerOrder(audio: audio + formerHolders, video: video + formerHolders)
        return order
    }

    /// Free places, and places whose holders have not spoken for the hang, go at once to the
    /// loudest speakers. The margin and the dwell keep two voices from flapping; a holder silent
    /// for longer than a pause between words is no voice to compete with, and making a speaker
    /// wait out the dwell for it only delays the turn.
    private mutating func fillFreePlaces(speaking: Double, at now: Duration) {
        var speakers = voices.filter { !holders.contains($0.key) && effectiveLoudness($0.value, at: now) >= speaking }
            .sorted { (effectiveLoudness($0.value, at: now), -$0.key) > (effectiveLoudness($1.value, at: now), -$1.key) }
            .map(\.key)[...]
        while holders.count < configuration.places, let speaker = speakers.popFirst() { take(speaker) }
        guard !speakers.isEmpty else { return }
        let silentHolders = holders.filter { !isSpeaking($0, at: now) }
            .sorted { (voices[$0]?.lastSpoke ?? .zero, $0) < (voices[$1]?.lastSpoke ?? .zero, $1) }
        for holder in silentHolders {
            guard let speaker = speakers.popFirst() else { break }
            holders.removeAll { $0 == holder }
            remember(holder)
            take(speaker)
            startDwellsOver()
        }
    }

    /// Whether `publisher` spoke within the hang, as of the last evaluation.
    private func isSpeaking(_ publisher: Int, at now: Duration) -> Bool {
        voices[publisher]?.lastSpoke.map { now - $0 <= configuration.hang } ?? false
    }

    private mutating func replaceQuietestHolder(speaking: Double, at now: Duration) {
        guard holders.count == configuration.places,
            let quietest = holders.min(by: { (effectiveLoudness(of: $0, at: now), -$0) < (effectiveLoudness(of: $1, at: now), -$1) })
        else { return }
        let bar = effectiveLoudness(of: quietest, at: now) + configuration.margin
        var best: (publisher: Int, loudness: Double)?
        for (publisher, voice) in voices where !holders.contains(publisher) {
            let loudness = effectiveLoudness(voice, at: now)
            guard loudness >= speaking, loudness >= bar else {
                voices[publisher]?.louderSince = nil
                continue
            }
            let since = voice.louderSince ?? now
            voices[publisher]?.louderSince = since
            guard now - since >= configuration.dwell else { continue }
            if best.map({ (loudness, -publisher) > ($0.loudness, -$0.publisher) }) ?? true { best = (publisher, loudness) }
        }
        guard let best else { return }
        holders.removeAll { $0 == quietest }
        remember(quietest)
        take(best.publisher)
        startDwellsOver()
    }

    /// A newcomer raised the bar: whoever else waited starts over against the new quietest.
    private mutating func startDwellsOver() {
        for publisher in voices.keys where !holders.contains(publisher) { voices[publisher]?.louderSince = nil }
    }

    private mutating func take(_ publisher: Int) {
        holders.append(publisher)
        formerHolders.removeAll { $0 == publisher }
        voices[publisher]?.louderSince = nil
    }

    /// A displaced holder stays first among the rest (its video and audio come back first).
    private mutating func remember(_ publisher: Int) {
        formerHolders.removeAll { $0 == publisher }
        formerHolders.insert(publisher, at: 0)
        if formerHolders.count > 16 { formerHolders.removeLast() }
    }

    private func effectiveLoudness(of publisher: Int, at now: Duration) -> Double {
        voices[publisher].map { effectiveLoudness($0, at: now) } ?? 0
    }

    private func effectiveLoudness(_ voice: Voice, at now: Duration) -> Double {
        now - voice.lastHeard > configuration.staleAfter ? 0 : voice.loudness
    }
}
