import Foundation
import PackagePlugin

/// Builds the web console's files (`Console/Assets` of the target) into the target as Swift
/// source, so that the `caucus` binary alone is the whole install: no resource bundle to
/// copy beside it. Runs again whenever a file of the folder changes.
@main
struct EmbedConsoleAssets: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let folder = target.directoryURL.appending(path: "Console/Assets")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { !$0.hasPrefix(".") }.sorted()
        let inputs = names.map { folder.appending(path: $0) }
        let output = context.pluginWorkDirectoryURL.appending(path: "EmbeddedConsoleAssets.swift")
        return [
            .buildCommand(
                displayName: "Embedding \(names.count) console files in \(target.name)",
                executable: try context.tool(named: "EmbedConsoleAssetsTool").url,
                arguments: [output.path] + inputs.map(\.path),
                inputFiles: inputs,
                outputFiles: [output])
        ]
    }
}
