import Foundation
import LibCLI
@testable import LibCommands
import Testing

/// The files `scripts/generate-docs.sh` writes, with what the registry generates for them.
private func generatedFiles() -> [(path: String, text: String)] {
    Shell.allCases.map { ("completions/\($0.scriptFileName)", $0.completionScript(for: .lib)) }
        + [("man/lib.1", ManualPage(registry: .lib).render())]
}

@Test func checkedInCompletionsAndManPageMatchTheRegistry() throws {
    for file in generatedFiles() {
        let checkedIn = try Repository.text(file.path)
        #expect(
            checkedIn == file.text,
            "\(file.path) is stale: run 'make generate' (or: swift build && scripts/generate-docs.sh .build/debug/lib)")
    }
}

/// Every spelling of every option, and where it must be documented.
@Test func everyRegisteredFlagAppearsInHelpManPageAndEveryCompletionScript() throws {
    let registry = CommandRegistry.lib
    let help = HelpText(registry: .lib)
    let manual = try Repository.text("man/lib.1")
    let bash = try Repository.text("completions/lib.bash")
    let zsh = try Repository.text("completions/_lib")
    let fish = try Repository.text("completions/lib.fish")

    func roff(_ spelling: String) -> String { "\\fB" + spelling.replacingOccurrences(of: "-", with: "\\-") + "\\fR" }
    func section(_ text: String, from start: String, to end: String) -> Substring {
        guard let lower = text.range(of: start) else { return "" }
        let rest = text[lower.upperBound...]
        return rest[..<(rest.range(of: end)?.lowerBound ?? rest.endIndex)]
    }

    // Global options.
    let programHelp = help.programHelp()
    let manGlobals = section(manual, from: ".SH GLOBAL OPTIONS", to: ".SH ")
    let bashGlobals = section(bash, from: "# Global options, before the command.", to: "# The command's options")
    let zshGlobals = section(zsh, from: "_arguments -C -S", to: "'1: :_lib_commands'")
    for option in registry.globalOptions {
        for spelling in [option.shortForm, option.longForm].compactMap({ $0 }) {
            #expect(programHelp.contains(option.helpLabel), "lib --help lacks \(spelling)")
            #expect(manGlobals.contains(roff(spelling)), "man page lacks global \(spelling)")
            #expect(bashGlobals.contains(" \(spelling)"), "bash script lacks global \(spelling)")
            #expect(zshGlobals.contains(")\(spelling)"), "zsh script lacks global \(spelling)")
        }
        let fishLine = "complete -c lib -n 'not __lib_command'" + (option.short.map { " -s \($0)" } ?? "") + " -l \(option.name) "
        #expect(fish.contains(fishLine), "fish script lacks global \(option.longForm)")
    }

    // Each command's options, in that command's part of each document.
    for command in registry.visibleCommands {
        #expect(bash.contains("\n        \(command.name)) "), "bash script lacks \(command.name)")
        #expect(zsh.contains("\n    '\(command.name):"), "zsh script lacks \(command.name)")
        #expect(fish.contains(" -a \(command.name) -d "), "fish script lacks \(command.name)")
        let commandHelp = help.commandHelp(command)
        let manSection = section(manual, from: ".SS \(command.name)\n", to: ".SS ")
        let bashOptions = section(bash, from: "\n        \(command.name)) _lib_options=(", to: ")")
        let zshSection = section(zsh, from: "\n      (\(command.name))\n", to: ";;")
        for option in command.acceptedOptions {
            #expect(commandHelp.contains(option.helpLabel), "lib \(command.name) --help lacks \(option.longForm)")
            if option != GlobalOptionsSyntax.help {
                #expect(manSection.contains(roff(option.longForm)), "man page lacks \(command.name) \(option.longForm)")
            }
            for spelling in [option.shortForm, option.longForm].compactMap({ $0 }) {
                #expect(bashOptions.split(separator: " ").contains(Substring(spelling)), "bash: \(command.name) \(spelling)")
                #expect(zshSection.contains(")\(spelling)"), "zsh: \(command.name) \(spelling)")
            }
            let fishLines = fish.split(separator: "\n").filter {
                ($0.contains("'__lib_using \(command.name)'") || $0.contains("'__lib_using \(command.name);"))
                    && $0.contains(" -l \(option.name) ")
            }
            #expect(fishLines.count == 1, "fish: \(command.name) \(option.longForm)")
        }
    }
}

@Test func generatorScriptRewritesTheFilesFromTheBinary() throws {
    let script = Repository.root.appendingPathComponent("scripts/generate-docs.sh").path
    #expect(FileManager.default.isExecutableFile(atPath: script))
    let text = try Repository.text("scripts/generate-docs.sh")
    for (file, arguments) in [("lib.bash", "completion bash"), ("_lib", "completion zsh"), ("lib.fish", "completion fish"), ("lib.1", "__man")] {
        #expect(text.contains(file) && text.contains(arguments), "generate-docs.sh does not write \(file)")
    }
}
