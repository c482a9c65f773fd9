import LibCLI
import LibJSON
import LibSync
import LibBase
import LibClient

/// Settles one conflict or rejected write (`lib resolve PATH --…`).
struct Resolution {
    let write: Write
    let store: AccountStore
    let workspace: AccountWorkspace
    /// `--yes`: `--whole` may revert without asking.
    let confirmed: Bool

    /// What the choice said, for `--json` (which prints one document instead).
    let said = SaidLines()

    var context: CommandContext { workspace.context }
    var now: UnixSeconds { context.now().secondsSince1970 }
    var key: String { write.key }

    func say(_ line: String) {
        if context.globalOptions.json { said.lines.append(line); return }
        guard !context.globalOptions.quiet else { return }
        context.standardOutput.write(line + "\n")
        context.standardOutput.flush()
    }

    // MARK: Showing

    func show() throws -> ExitCode {
        if context.globalOptions.json {
            context.standardOutput.write(try viewJSON().serialized() + "\n")
            return .attention
        }
        guard write.isConflict else {
            var text = "\(key) was rejected by the server for \(workspace.name): \(TerminalText.escaped(write.item.problem ?? "no reason given")).\n"
            text += "Your write: " + Self.describe(write.item.intent) + "\n"
            if !write.later.isEmpty {
                text += "\(Wording.writes(write.later.count).capitalizedFirst) of \(key) made on top of it also \(write.later.count == 1 ? "waits" : "wait").\n"
            }
            text += "Run `\(workspace.lib) resolve \(key) --edit` to fix it, or `\(workspace.lib) resolve \(key) --discard` to drop it.\n"
            context.standardOutput.write(context.standardOutput.fitted(text))
            return .attention
        }
        let sides = try Sides(write.item)
        var intro = "\(key) is in conflict for \(workspace.name): the server's copy changed after yours was based on it.\n"
        if sides.mine == nil { intro += "Mine deletes it.\n" }
        if sides.theirs == nil { intro += "Theirs: the server no longer has it (deleted).\n" }
        var rest: String
        switch sides.merged {
        case .clash(let clash):
            rest = Sides.why(clash, key) + ".\n"
        case .document, .theirs, .delete:
            rest = "No field clashes: run `\(workspace.lib) resolve \(key) --merge`, or choose with --mine, --theirs or --edit.\n"
        }
        rest += "\n" + ResolveChoices(key: key, sides: sides, later: write.later.count).text
        // The table fits by itself; the sentences are wrapped between words.
        let output = context.standardOutput
        output.write(output.fitted(intro) + "\n" + table(sides) + "\n" + output.fitted(rest))
        return .attention
    }

    /// FIELD | BASE | MINE | THEIRS, a `*` before the fields changed on both sides.
    func table(_ sides: Sides) -> String {
        let fields = FieldMerge.fields(sides.base ?? JSONObject(), sides.mine ?? JSONObject(), sides.theirs ?? JSONObject())
        func cell(_ object: JSONObject?, _ field: String, whenMissing: String) -> String {
            guard let object else { return whenMissing }
            guard let value = object[field] else { return "-" }
            return value.serialized()
        }
        // On a terminal: clashing fields in red, my changes green, theirs cyan.
        // Whole values, wrapped: two that differ only at their end must never look the same.
        var table = TextTable([.init("  FIELD", canShrink: false), .init("BASE"), .init("MINE"), .init("THEIRS")])
        table.wrapsCells = true
        var marked = false
        for field in fields {
            let clash = FieldMerge.clashes(field, base: sides.base, mine: sides.mine, theirs: sides.theirs)
            marked = marked || clash
            let base = sides.base?[field]
            table.append([.init((clash ? "* " : "  ") + field, clash ? .red : nil),
                          .init(cell(sides.base, field, whenMissing: "(none)")),
                          .init(cell(sides.mine, field, whenMissing: "(deleted)"), sides.mine?[field] != base ? .green : nil),
                          .init(cell(sides.theirs, field, whenMissing: "(deleted)"), sides.theirs?[field] != base ? .cyan : nil)])
        }
        let context = workspace.context
        var text = table.render(width: context.outputWidth, painter: context.outputPainter)
        if marked { text += "* changed on both sides\n" }
        return text
    }

    // MARK: Settling, field by field

    func requireConflict(_ option: String) throws {
        guard write.isConflict else {
            throw UsageError("\(key) was rejected by the server, not in conflict: \(option) does not apply; use --edit or --discard",
                             command: "resolve")
        }
    }

    /// `--mine`: my values for the clashing fields; every other change of
    /// both sides kept. A delete against a change is a clash of the whole
    /// document: mine deletes.
    func keepMine() throws -> ExitCode {
        try requireConflict("--mine")
        let sides = try Sides(write.item)
        guard let merge = sides.fieldMerge(clashesTake: .mine) else {
            return try keepMineDocument(sides)
        }
        try settle(on: merge.merged)
        say("Resolved \(key) for \(workspace.name): \(Self.describe(merge, clashesFrom: .mine)); it will be sent at the next push.")
        return .success
    }

    /// `--theirs`: the server's values for the clashing fields; every other
    /// change of both sides kept.
    func keepTheirs() throws -> ExitCode {
        try requireConflict("--theirs")
        let sides = try Sides(write.item)
        guard let merge = sides.fieldMerge(clashesTake: .theirs), let theirs = sides.theirs else {
            try settlement.dropAll(now: now)
            say("Resolved \(key) for \(workspace.name): kept the server's version; dropped \(write.droppedPhrase) of yours.")
            return .success
        }
        if merge.merged == theirs {
            // Nothing of this write is left to send; the writes made on top
            // of it go on, carried over onto the server's version.
            let left: String
            switch try settle(on: theirs) {
            case .nothingToSendNextInConflict:
                left = "your write made on top of it sets a field the server changed too: it now waits for you (`\(workspace.lib) resolve \(key)`)"
            case _ where !write.later.isEmpty:
                left = "your \(Wording.writes(write.later.count)) made on top of it will be sent at the next push, over the server's version"
            default:
                left = "nothing of yours is left to send"
            }
            say("Resolved \(key) for \(workspace.name): \(Self.describe(merge, clashesFrom: .theirs)); \(left).")
            return .success
        }
        try settle(on: merge.merged)
        say("Resolved \(key) for \(workspace.name): \(Self.describe(merge, clashesFrom: .theirs)); it will be sent at the next push.")
        return .success
    }

    /// "your title; kept copies from the server and year from you".
    static func describe(_ merge: FieldMerge, clashesFrom side: FieldMerge.Side) -> String {
        var parts: [String] = []
        if !merge.clashes.isEmpty { parts.append((side == .mine ? "your " : "the server's ") + merge.clashes.joinedAsList()) }
        var kept: [String] = []
        if !merge.fromTheirs.isEmpty { kept.append(merge.fromTheirs.joinedAsList() + " from the server") }
        if !merge.fromMine.isEmpty { kept.append(merge.fromMine.joinedAsList() + " from you") }
        if !kept.isEmpty { parts.append("kept " + kept.joined(separator: " and ")) }
        return parts.isEmpty ? "nothing clashed" : parts.joined(separator: "; ")
    }

    /// Mine deletes it, or the server deleted it: the document is the clash.
    private func keepMineDocument(_ sides: Sides) throws -> ExitCode {
        if sides.mine == nil && sides.theirs == nil {
            try settle(on: nil)
            say("Resolved \(key) for \(workspace.name): the server had already deleted it; nothing to send.")
            return .success
        }
        try settle(on: sides.mine)
        say(sides.mine == nil
            ? "Resolved \(key) for \(workspace.name): your delete will be sent at the next push."
            : "Resolved \(key) for \(workspace.name): the server had deleted it; your version will create it again at the next push.")
        return .success
    }

    // MARK: Settling, whole document

    /// `--mine --whole`: my document as it is, over theirs.
    func keepWholeMine() throws -> ExitCode {
        try requireConflict("--mine --whole")
        let sides = try Sides(write.item)
        let reverted = sides.fieldMerge(clashesTake: .mine)?.fromTheirs ?? []
        guard try confirmReverting(reverted, side: "the server", option: "--mine --whole", instead: "--mine") else { return .failure }
        if sides.mine == nil && sides.theirs == nil {
            try settle(on: nil)
            say("Resolved \(key) for \(workspace.name): the server had already deleted it; nothing to send.")
            return .success
        }
        try settle(on: sides.mine)
        let what = reverted.isEmpty ? "" : "; it reverts \(reverted.joinedAsList()) (changed on the server)"
        say("Resolved \(key) for \(workspace.name): your whole version will be sent at the next push\(what).")
        return .success
    }

    /// `--theirs --whole`: the server's document as it is; all of mine dropped.
    func keepWholeTheirs() throws -> ExitCode {
        try requireConflict("--theirs --whole")
        let sides = try Sides(write.item)
        // Mine as this device shows it: with the writes made on top of it.
        let newest = LocalVersion(path: key, cached: sides.base.map { .object($0) }, writes: [write.item] + write.later).document
        var reverted: [String] = []
        if let newest, let theirs = sides.theirs {
            reverted = FieldMerge(base: sides.base ?? JSONObject(), mine: newest, theirs: theirs, clashesTake: .theirs).fromMine
        }
        guard try confirmReverting(reverted, side: "you", option: "--theirs --whole", instead: "--theirs") else { return .failure }
        try settlement.dropAll(now: now)
        let what = reverted.isEmpty ? "" : " (it reverts your change to \(reverted.joinedAsList()))"
        say("Resolved \(key) for \(workspace.name): kept the server's whole version; dropped \(write.droppedPhrase) of yours\(what).")
        return .success
    }

    /// Says which fields the whole-document choice reverts and asks on a
    /// terminal; off a terminal it needs --yes. False when the user said no.
    private func confirmReverting(_ fields: [String], side: String, option: String, instead: String) throws -> Bool {
        guard !fields.isEmpty, !confirmed else { return true }
        let sentence = "\(option) reverts \(fields.joinedAsList()) (changed by \(side) alone)"
        guard context.standardInput.isTerminal else {
            throw UsageError("\(sentence): add --yes to confirm, or use \(instead) to keep \(fields.count == 1 ? "that change" : "those changes")",
                             command: "resolve")
        }
        context.standardOutput.flush()
        guard TerminalPrompt.confirm("\(sentence.capitalizedFirst) for \(key). Go on?", defaultYes: false) else {
            context.standardError.write("Nothing changed; \(key) still waits for a decision (\(workspace.name)).\n")
            return false
        }
        return true
    }

    // MARK: Merge, edit, discard

    func merge() throws -> ExitCode {
        try requireConflict("--merge")
        let sides = try Sides(write.item)
        switch sides.merged {
        case .clash(let clash):
            context.standardError.write("\(ProgramInfo.name): \(Sides.why(clash, key)).\n")
            return .attention
        case .theirs:
            if sides.mine == nil {
                try settle(on: nil)
                say("Resolved \(key) for \(workspace.name): the server had already deleted it; nothing to send.")
            } else {
                try settlement.dropAll(now: now)
                say("Resolved \(key) for \(workspace.name): the server had deleted it and you had not changed it; dropped \(write.droppedPhrase).")
            }
            return .success
        case .delete:
            try settle(on: nil)
            say("Resolved \(key) for \(workspace.name) (merged): your delete will be sent at the next push.")
            return .success
        case .document(let merge):
            switch try settle(on: merge.merged) {
            case .nothingToSend:
                say("Resolved \(key) for \(workspace.name) (merged): the server already has your changes; nothing to send.")
                return .success
            case .nothingToSendNextInConflict:
                say("Resolved \(key) for \(workspace.name) (merged): the server already has your changes; your write made on top of it sets a field the server changed too and now waits for you (`\(workspace.lib) resolve \(key)`).")
                return .success
            case .requeued:
                break
            }
            var sources: [String] = []
            if !merge.fromTheirs.isEmpty { sources.append(merge.fromTheirs.joinedAsList() + " from the server") }
            if !merge.fromMine.isEmpty { sources.append(merge.fromMine.joinedAsList() + " from you") }
            let detail = sources.isEmpty ? "" : " (" + sources.joined(separator: "; ") + ")"
            say("Resolved \(key) for \(workspace.name): merged\(detail); it will be sent at the next push.")
            return .success
        }
    }

    func edit() throws -> ExitCode {
        let id = write.path.id ?? ""
        var start: JSONObject
        var notes = ["Resolving \(key) for \(workspace.name)."]
        var sides: Sides?
        if write.isConflict {
            let known = try Sides(write.item)
            sides = known
            switch (known.mine, known.theirs) {
            case (let mine?, let theirs?):
                let merge = FieldMerge(base: known.base ?? JSONObject(), mine: mine, theirs: theirs)
                start = ClashMarkers.marked(merge, mine: mine, theirs: theirs)
                if !merge.clashes.isEmpty {
                    notes.append("Changed on both sides: \(merge.clashes.joined(separator: ", ")). Each shows both values,")
                    notes.append("{\"\(ClashMarkers.mine)\": yours, \"\(ClashMarkers.theirs)\": the server's} (null: that side removes it);")
                    notes.append("replace each with the value to keep. The file cannot be saved while a marker is left.")
                }
            case (nil, let theirs?):
                start = theirs
                notes.append("You deleted it; this is the server's version.")
            case (let mine?, nil):
                start = mine
                notes.append("The server deleted it; this is your version, to create it again.")
            case (nil, nil):
                start = JSONObject([("id", .string(id))])
                notes.append("Both sides deleted it; saving a document creates it again.")
            }
        } else {
            let known = try Sides(write.item)
            start = known.mine ?? known.base ?? JSONObject([("id", .string(id))])
            notes.append("The server rejected it: \(TerminalText.escaped(write.item.problem ?? "no reason given")).")
        }
        notes.append(DocumentEditor.commentRule)
        let rules = try BookRules.forAccount(store)
        let editor = DocumentEditor(environment: context.environment, introduction: notes, validate: { document in
            let markers = ClashMarkers.problems(in: document)
            return markers.isEmpty ? rules.problems(in: document, id: id) : markers
        })
        context.standardOutput.flush()
        guard let edited = try editor.edit(.object(start), fileName: DocumentEditor.fileName(for: key)),
              let document = edited.objectValue else {
            context.standardError.write("\(ProgramInfo.name): Nothing changed; \(key) still waits for a decision (\(workspace.name)).\n")
            return .attention
        }
        if sides != nil {
            try settle(on: document)
        } else {
            try settlement.replace(with: document, now: now)
        }
        say("Resolved \(key) for \(workspace.name): your edited version will be sent at the next push.")
        return .success
    }

    func discard() throws -> ExitCode {
        // The same as `lib discard PATH`: every write of the path goes.
        try store.outbox.discard(paths: [key])
        say("Resolved \(key) for \(workspace.name): discarded \(write.droppedPhrase).")
        return .success
    }

    // MARK: Outbox changes

    var settlement: Settlement { Settlement(store: store, write: write.item, later: write.later) }

    /// Settles the conflict on `result` (nil: deleted), over the server's version.
    @discardableResult
    func settle(on result: JSONObject?) throws -> Settlement.Outcome {
        do {
            return try settlement.settle(on: result, now: context.now().secondsSince1970)
        } catch let error as SettlementError {
            throw CommandFailure(error.description)
        }
    }

    /// A rejected write's intent, in a line: "delete it", "create {…}", "set title to "…"".
    static func describe(_ intent: WriteIntent) -> String {
        switch intent {
        case .delete: return "delete it"
        case .create(let document): return "create " + JSONValue.object(document).serialized()
        case .change(let changes):
            return changes.fields.map { name, value in
                value.map { "set \(name) to \($0.serialized())" } ?? "remove \(name)"
            }.joined(separator: ", ")
        }
    }
}
