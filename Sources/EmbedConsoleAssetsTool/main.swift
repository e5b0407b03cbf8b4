import Foundation

// Writes a Swift file holding each input file's bytes (base64, so any byte survives and the
// compiler reads one string literal per file): `EmbedConsoleAssetsTool <output.swift> <file>…`.
// Run by the EmbedConsoleAssets build plugin.

let arguments = CommandLine.arguments.dropFirst()
guard let output = arguments.first else {
    FileHandle.standardError.write(Data("usage: EmbedConsoleAssetsTool <output.swift> <file>...\n".utf8))
    exit(2)
}
var source = """
    // Generated at build time by the EmbedConsoleAssets plugin from Console/Assets: do not edit.

    /// The web console's files, built into the binary (see `ConsoleAssets`).
    enum EmbeddedConsoleAssets {
        /// Each file's name and its bytes in base64.
        static let files: [(name: String, base64: String)] = [

    """
for path in arguments.dropFirst() {
    let url = URL(fileURLWithPath: path)
    let data = try Data(contentsOf: url)
    source += "        (\"\(url.lastPathComponent)\", \"\(data.base64EncodedString())\"),\n"
}
source += "    ]\n}\n"
try Data(source.utf8).write(to: URL(fileURLWithPath: output), options: .atomic)
