import LibCLI
import LibJSON
import LibStore
import LibSync

/// `lib resolve [PATH] [--mine | --theirs | --merge | --edit | --discard]`
///
/// Lists the account's conflicts and rejected writes, shows one (base, mine
/// and theirs, field by field), or settles it. Works offline, from what the
/// server's 412 answer stored in the outbox: never the network, never the
/// keyring.
///
/// Exit 0 when settled (or nothing to resolve, without PATH); 3 when
/// something still waits for a decision (a listing, a display, a merge whose
/// fields clash); 1 when PATH has nothing to resolve; 2 for a bad PATH or an
/// option that does not fit the write (such as --mine on a rejected write).
enum Resolve {
    enum Action: String {
        case mine, theirs, merge, edit, discard
    }

    static func action(_ parsed: ParsedCommand) -> Action? {
        if parsed.isSet(ResolveSyntax.mine) { return .mine }
        if parsed.isSet(ResolveSyntax.theirs) { return .theirs }
        if parsed.isSet(ResolveSyntax.merge) { return .merge }
        if parsed.isSet(ResolveSyntax.edit) { return .edit }
        if parsed.isSet(ResolveSyntax.discard) { return .discard }
        return nil
    }

    static func run(_ parsed: ParsedCommand, _ context: CommandContext) throws -> ExitCode {
        let action = action(parsed)
        var path: ResourcePath?
        if let text = parsed.argument(ResolveSyntax.path) {
            let parsedPath = try ResourcePath(parsing: text)
            guard parsedPath.isDocument else {
                throw UsageError("'\(text)' is a collection; resolve one of its documents, such as '\(parsedPath.collection)/b-7'",
                                 command: "resolve")
            }
            path = parsedPath
        }
        if path == nil, let action {
            throw UsageError("--\(action.rawValue) needs a PATH, such as 'books/b-7'; run `lib resolve` to list what waits",
                             command: "resolve")
        }
        let workspace = try AccountWorkspace(context)
        let store = try workspace.openStore()
        guard let path else { return try list(store, workspace) }

        let key = path.description
        let items = try store.outbox.items(for: key)
        guard let index = items.firstIndex(where: { $0.status != .pending }) else {
            throw CommandFailure("Nothing to resolve for \(key): it has no conflict or rejected write for \(workspace.name).")
        }
        let write = Write(path: path, item: items[index], later: Array(items[(index + 1)...]))
        let resolution = Resolution(write: write, store: store, workspace: workspace)
        switch action {
        case nil: return try resolution.show()
        case .mine: return try resolution.keepMine()
        case .theirs: return try resolution.keepTheirs()
        case .merge: return try resolution.merge()
        case .edit: return try resolution.edit()
        case .discard: return try resolution.discard()
        }
    }

    /// Every conflict and rejected write of the account, oldest first.
    static func list(_ store: AccountStore, _ workspace: AccountWorkspace) throws -> ExitCode {
        let context = workspace.context
        let waiting = try store.outbox.all().filter { $0.status != .pending }
        if context.globalOptions.json {
            let entries = waiting.map { item -> JSONValue in
                var object = JSONObject([("path", .string(item.path)), ("status", .string(item.status.rawValue))])
                if item.status == .rejected { object["problem"] = .string(item.problem ?? "") }
                return .object(object)
            }
            let document = JSONValue.object(JSONObject([("account", .string(workspace.name)), ("items", .array(entries))]))
            context.standardOutput.write(document.serialized() + "\n")
            return waiting.isEmpty ? .success : .attention
        }
        guard !waiting.isEmpty else {
            if !context.globalOptions.quiet {
                context.standardOutput.write("Nothing to resolve for \(workspace.name).\n")
            }
            return .success
        }
        let width = waiting.map(\.path.count).max() ?? 0
        var text = "\(Wording.count(waiting.count, "write").capitalizedFirst) of \(workspace.name) \(waiting.count == 1 ? "waits" : "wait") for a decision:\n"
        for item in waiting {
            let what = item.status == .conflict ? "conflict" : "rejected: \(item.problem ?? "no reason given")"
            text += "  \(item.path.padding(to: width))  \(what)\n"
        }
        text += "Run `lib resolve PATH` to see one, then settle it with --mine, --theirs, --merge or --edit (a conflict) or --edit or --discard (a rejected write).\n"
        context.standardOutput.write(text)
        return .attention
    }
}

/// The write that waits (a conflict or a rejection) and the writes of the
/// same path queued after it, made on top of it.
struct Write {
    let path: ResourcePath
    let item: OutboxItem
    let later: [OutboxItem]

    var key: String { path.description }
    var isConflict: Bool { item.status == .conflict }

    /// "1 write" or "3 writes (2 made on top of it)".
    var droppedPhrase: String {
        let total = Wording.writes(1 + later.count)
        return later.isEmpty ? total : "\(total) (\(later.count) made on top of it)"
    }
}

/// The three versions of a conflicting document: nil `mine` is a delete,
/// nil `theirs` a document the server no longer has, nil `base` a create.
struct Sides {
    let base: JSONObject?
    let mine: JSONObject?
    let theirs: JSONObject?

    init(_ item: OutboxItem) throws {
        base = try Self.object(item.baseBody, item.path, "the copy your change was based on")
        mine = item.method == .delete ? nil : try Self.object(item.body, item.path, "your version")
        theirs = try Self.object(item.theirsBody, item.path, "the server's version")
    }

    static func object(_ text: String?, _ path: String, _ what: String) throws -> JSONObject? {
        guard let text else { return nil }
        let parsed = Result { () throws(JSONSyntaxError) in try JSONParser.parse(text) }
        guard case .success(let value) = parsed, let object = value.objectValue else {
            throw CommandFailure("The stored copy of \(what) of \(path) is not a JSON object; use --theirs or --discard.")
        }
        return object
    }

    /// What a three-way merge makes of them.
    enum Merged {
        /// A document to send (with the field-level details).
        case document(FieldMerge)
        /// Both sides delete it, or the server's copy is what mine would make: nothing to send.
        case theirs
        /// Delete the server's copy (mine deletes, theirs did not change it).
        case delete
        /// Cannot be merged: the sentence says why.
        case clash(String)
    }

    func merged(_ key: String) -> Merged {
        switch (mine, theirs) {
        case (nil, nil):
            return .theirs
        case (nil, let theirs?):
            return theirs == base ? .delete
                : .clash("\(key) was deleted here and changed on the server: use --mine, --theirs or --edit")
        case (let mine?, nil):
            return base != nil && mine == base ? .theirs
                : .clash("\(key) was changed here and deleted on the server: use --mine, --theirs or --edit")
        case (let mine?, let theirs?):
            let merge = FieldMerge(base: base ?? JSONObject(), mine: mine, theirs: theirs)
            guard merge.isClean else {
                let names = merge.clashes.joined(separator: ", ", last: " and ")
                let verb = merge.clashes.count == 1 ? "was" : "were"
                return .clash("\(names) \(verb) changed on both sides: use --mine, --theirs or --edit")
            }
            return .document(merge)
        }
    }
}

/// Settles one write.
struct Resolution {
    let write: Write
    let store: AccountStore
    let workspace: AccountWorkspace

    var context: CommandContext { workspace.context }
    var key: String { write.key }

    func say(_ line: String) {
        guard !context.globalOptions.quiet else { return }
        context.standardOutput.write(line + "\n")
        context.standardOutput.flush()
    }

    // MARK: Showing

    func show() throws -> ExitCode {
        guard write.isConflict else {
            var text = "\(key) was rejected by the server for \(workspace.name): \(write.item.problem ?? "no reason given").\n"
            text += "Your write: " + (write.item.method == .delete ? "delete it" : (write.item.body ?? "")) + "\n"
            if !write.later.isEmpty {
                text += "\(Wording.writes(write.later.count).capitalizedFirst) of \(key) made on top of it also \(write.later.count == 1 ? "waits" : "wait").\n"
            }
            text += "Run `lib resolve \(key) --edit` to fix it, or `lib resolve \(key) --discard` to drop it.\n"
            context.standardOutput.write(text)
            return .attention
        }
        let sides = try Sides(write.item)
        var text = "\(key) is in conflict for \(workspace.name): the server's copy changed after yours was based on it.\n"
        if sides.mine == nil { text += "Mine deletes it.\n" }
        if sides.theirs == nil { text += "Theirs: the server no longer has it (deleted).\n" }
        text += "\n" + table(sides) + "\n"
        switch sides.merged(key) {
        case .clash(let why):
            text += why.capitalizedFirst + ".\n"
        case .document, .theirs, .delete:
            text += "No field clashes: run `lib resolve \(key) --merge`, or choose with --mine, --theirs or --edit.\n"
        }
        context.standardOutput.write(text)
        return .attention
    }

    /// FIELD | BASE | MINE | THEIRS, a `*` before the fields changed on both sides.
    func table(_ sides: Sides) -> String {
        let fields = FieldMerge.fields(sides.base ?? JSONObject(), sides.mine ?? JSONObject(), sides.theirs ?? JSONObject())
        func cell(_ object: JSONObject?, _ field: String, whenMissing: String) -> String {
            guard let object else { return whenMissing }
            guard let value = object[field] else { return "-" }
            let text = value.serialized()
            return text.count > 40 ? String(text.prefix(39)) + "…" : text
        }
        var rows = [["  FIELD", "BASE", "MINE", "THEIRS"]]
        var marked = false
        for field in fields {
            let clash = FieldMerge.clashes(field, base: sides.base, mine: sides.mine, theirs: sides.theirs)
            marked = marked || clash
            rows.append([(clash ? "* " : "  ") + field, cell(sides.base, field, whenMissing: "(none)"),
                         cell(sides.mine, field, whenMissing: "(deleted)"), cell(sides.theirs, field, whenMissing: "(deleted)")])
        }
        let widths = (0..<4).map { column in rows.map { $0[column].count }.max() ?? 0 }
        var text = ""
        for row in rows {
            let line = (0..<4).map { row[$0].padding(to: widths[$0]) }.joined(separator: "  ")
            text += String(line.reversed().drop(while: { $0 == " " }).reversed()) + "\n"
        }
        if marked { text += "* changed on both sides\n" }
        return text
    }

    // MARK: Settling

    func requireConflict(_ option: String) throws {
        guard write.isConflict else {
            throw UsageError("\(key) was rejected by the server, not in conflict: --\(option) does not apply; use --edit or --discard",
                             command: "resolve")
        }
    }

    func keepMine() throws -> ExitCode {
        try requireConflict("mine")
        let sides = try Sides(write.item)
        if sides.mine == nil && sides.theirs == nil {
            try dropBecauseAlreadyDeleted()
            say("Resolved \(key) for \(workspace.name): the server had already deleted it; nothing to send.")
            return .success
        }
        try requeueOverTheirs(body: write.item.body, method: write.item.method, sides: sides)
        say("\(key): your version will be sent at the next push.")
        return .success
    }

    func keepTheirs() throws -> ExitCode {
        try requireConflict("theirs")
        try dropMineKeepTheirs()
        say("Resolved \(key) for \(workspace.name): kept the server's version; dropped \(write.droppedPhrase) of yours.")
        return .success
    }

    func merge() throws -> ExitCode {
        try requireConflict("merge")
        let sides = try Sides(write.item)
        switch sides.merged(key) {
        case .clash(let why):
            context.standardError.write("\(ProgramInfo.name): \(why.capitalizedFirst).\n")
            return .attention
        case .theirs:
            if sides.mine == nil {
                try dropBecauseAlreadyDeleted()
                say("Resolved \(key) for \(workspace.name): the server had already deleted it; nothing to send.")
            } else {
                try dropMineKeepTheirs()
                say("Resolved \(key) for \(workspace.name): the server had deleted it and you had not changed it; dropped \(write.droppedPhrase).")
            }
            return .success
        case .delete:
            try requeueOverTheirs(body: nil, method: .delete, sides: sides)
            say("Resolved \(key) for \(workspace.name) (merged): your delete will be sent at the next push.")
            return .success
        case .document(let merge):
            if merge.fromMine.isEmpty && write.later.isEmpty && merge.merged == sides.theirs {
                try dropMineKeepTheirs()
                say("Resolved \(key) for \(workspace.name) (merged): the server already has your changes; nothing to send.")
                return .success
            }
            try requeueOverTheirs(body: JSONValue.object(merge.merged).serialized(), method: .put, sides: sides)
            var sources: [String] = []
            if !merge.fromTheirs.isEmpty { sources.append(merge.fromTheirs.joined(separator: ", ", last: " and ") + " from the server") }
            if !merge.fromMine.isEmpty { sources.append(merge.fromMine.joined(separator: ", ", last: " and ") + " from you") }
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
                start = merge.merged
                if !merge.clashes.isEmpty {
                    notes.append("Changed on both sides (your value is shown): " + merge.clashes.joined(separator: ", ") + ".")
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
            notes.append("The server rejected it: \(write.item.problem ?? "no reason given").")
        }
        notes.append("Lines starting with '#' are ignored; an unchanged or empty file changes nothing.")
        let editor = DocumentEditor(environment: context.environment, introduction: notes,
                                    validate: { BookRules.problems(in: $0, id: id) })
        context.standardOutput.flush()
        let fileName = String(key.map { $0 == "/" ? "-" : $0 }) + ".json"
        guard let edited = try editor.edit(.object(start), fileName: fileName) else {
            context.standardError.write("\(ProgramInfo.name): Nothing changed; \(key) still waits for a decision (\(workspace.name)).\n")
            return .attention
        }
        if let sides {
            try requeueOverTheirs(body: edited.serialized(), method: .put, sides: sides)
        } else {
            try store.outbox.requeue(seq: write.item.seq, body: edited.serialized(), method: .put,
                                     ifMatch: write.item.ifMatch, createOnly: write.item.createOnly)
        }
        say("Resolved \(key) for \(workspace.name): your edited version will be sent at the next push.")
        return .success
    }

    func discard() throws -> ExitCode {
        try store.database.write { _ in
            for item in [write.item] + write.later { try store.outbox.remove(seq: item.seq) }
        }
        say("Resolved \(key) for \(workspace.name): discarded \(write.droppedPhrase).")
        return .success
    }

    // MARK: Outbox changes

    /// Puts the write back in line over the server's version: If-Match its
    /// ETag, or a create when the server no longer has it. The cache takes the
    /// server's version, the latest this device knows of.
    func requeueOverTheirs(body: String?, method: OutboxItem.Method, sides: Sides) throws {
        let item = write.item
        try store.database.write { _ in
            if sides.theirs == nil {
                try store.outbox.requeue(seq: item.seq, body: body, method: .put, ifMatch: nil, createOnly: true)
                try store.cache.forget(key)
            } else {
                guard let etag = item.theirsETag, let theirsBody = item.theirsBody else {
                    throw CommandFailure("The server's answer for \(key) had no ETag: run `lib get \(key)` while online, then `lib resolve \(key) --edit`.")
                }
                try store.outbox.requeue(seq: item.seq, body: body, method: method, ifMatch: etag, createOnly: false)
                try store.cache.save(key, body: theirsBody, etag: etag, at: UnixClock.now())
            }
        }
    }

    /// Drops the write and those made on top of it; the cache takes theirs.
    func dropMineKeepTheirs() throws {
        let item = write.item
        try store.database.write { _ in
            for dropped in [item] + write.later { try store.outbox.remove(seq: dropped.seq) }
            if let body = item.theirsBody {
                try store.cache.save(key, body: body, etag: item.theirsETag, at: UnixClock.now())
            } else {
                try store.cache.forget(key)
            }
        }
    }

    /// Mine deletes what the server already deleted: drop it; the next write
    /// of the path, if any, becomes a create.
    func dropBecauseAlreadyDeleted() throws {
        try store.database.write { _ in
            try store.outbox.remove(seq: write.item.seq)
            try store.cache.forget(key)
            if let next = write.later.first {
                try store.outbox.requeue(seq: next.seq, body: next.body, method: next.method, ifMatch: nil, createOnly: true)
            }
        }
    }
}

extension String {
    fileprivate func padding(to width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }
}

extension Array where Element == String {
    /// "a", "a and b", "a, b and c".
    fileprivate func joined(separator: String, last: String) -> String {
        guard count > 1, let final = self.last else { return first ?? "" }
        return dropLast().joined(separator: separator) + last + final
    }
}
