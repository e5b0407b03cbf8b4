/// Whether this `caucus` has real codecs: the package's `Codecs` trait (`swift build --traits
/// Codecs`), which links libopus and libvpx through `CaucusCodecs`. The trait is off by default,
/// so that `swift run caucus serve` needs Swift alone; a build without it refuses what needs
/// codecs (`caucus client`'s media options, `caucus bench media-clients`) before anything
/// starts, saying how to build with them.
enum CodecsBuild {
    #if Codecs
    static let isIncluded = true
    #else
    static let isIncluded = false
    #endif

    /// What needs codecs in a build without them, and how to build with them.
    struct Missing: Error, CustomStringConvertible {
        /// The options or command that need them (`--publish-tone`, `caucus bench media-clients`).
        let what: String

        var description: String {
            "\(what): this caucus was built without codecs (libopus and libvpx, the package's Codecs trait). "
                + "To build it with them: apt-get install pkg-config libopus-dev libvpx-dev, "
                + "then swift build --traits Codecs (or swift run --traits Codecs caucus …)."
        }
    }
}
