/// `lib-server --help`, and what follows a usage error: written from the
/// flags registry (`ServerFlags`), never by hand.
enum ServerUsage {
    static var text: String {
        let serve = ServerFlags.serve, userAdd = ServerFlags.userAdd
        let backup = ServerFlags.backup, restore = ServerFlags.restore
        var lines = filled(["lib-server"] + serve.synopsisItems.map(\.text), first: "usage: ")
        lines += filled([userAdd.commandLine] + userAdd.operandItems + userAdd.synopsisItems.map(\.text), first: "       ")
        lines += filled([backup.commandLine] + backup.synopsisItems.map(\.text), first: "       ")
        lines += filled([restore.commandLine] + restore.synopsisItems.map(\.text), first: "       ")
        lines.append("       lib-server --help | --version")
        lines.append("")
        lines += filled(serve.summary.split(separator: " ").map(String.init), first: "")
        lines.append("")
        lines.append("Options:")
        lines += flagLines(serve.flags)
        lines.append("")
        lines += commandSection(userAdd)
        lines.append("")
        lines += commandSection(backup)
        lines.append("")
        lines += commandSection(restore)
        return lines.joined(separator: "\n")
    }

    /// `lib-server user add NAME:`, what it does, its flags.
    private static func commandSection<Options>(_ command: ServerCommandSyntax<Options>) -> [String] {
        ["\(([command.commandLine] + command.operandItems).joined(separator: " ")):"]
            + filled(command.summary.split(separator: " ").map(String.init), first: "", indent: 2)
            + flagLines(command.flags)
    }

    /// `  --db PATH|URI   the database: ...`, the summaries in one column.
    private static func flagLines<Options>(_ flags: [ServerFlag<Options>]) -> [String] {
        let column = 2 + (flags.map(\.label.count).max() ?? 0) + 3
        return flags.flatMap { flag in
            let label = "  " + flag.label + String(repeating: " ", count: column - 2 - flag.label.count)
            var lines = filled(flag.summary.split(separator: " ").map(String.init), first: "", indent: column)
            lines[0] = label + lines[0].dropFirst(column)
            return lines
        }
    }

    /// Words filled into lines of at most 80 columns. A synopsis: the first
    /// line starts with `first`, the others line up after it and the first
    /// word. Prose (`first` empty): every line indented by `indent`.
    private static func filled(_ words: [String], first: String, indent spaces: Int = 0) -> [String] {
        let indent = String(repeating: " ", count: first.isEmpty ? spaces : first.count + (words.first?.count ?? 0) + 1)
        let first = first.isEmpty ? indent : first
        var lines: [String] = []
        var line = first
        for word in words {
            let fresh = line == first || line == indent
            if !fresh, line.count + 1 + word.count > 80 {
                lines.append(line)
                line = indent
            }
            line += (line == first || line == indent) ? word : " " + word
        }
        lines.append(line)
        return lines
    }
}

extension ServerCommandSyntax {
    /// The operand as a synopsis shows it (`NAME`).
    var operandItems: [String] { operand.map { [$0.placeholder] } ?? [] }
}
