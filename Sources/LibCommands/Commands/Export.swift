#if canImport(Glibc)
import Glibc
#endif
import LibAccounts
import LibBase
import LibCLI
import LibJSON
import LibSync

/// `lib export [--deleted] [-o FILE]`: the account's offline library as
/// NDJSON, one book a line in path order (`ExportLine`,
/// docs/json/export.schema.json): what the server proved, pending writes
/// not applied. Reads the store only, opened read-only: never the network
/// or the keyring, so the static `lib` runs it.
enum Export: Verb {
    static let name = "export"

    static let deleted = OptionSpec.flag(
        "deleted", "Add a line for each book a pull saw deleted",
        details: "Such a line is {\"path\", \"id\", \"deleted\": true}; this device keeps the newest \(SeenDeletions.limit) deletions a pull saw.")
    static let output = OptionSpec.option(
        "output", short: "o", value: "FILE", .text, "Write to FILE (0600, replaced whole) instead of standard output")

    static let command = CommandSpec(
        name: name,
        summary: "Write the offline library as JSON lines",
        discussion: """
            Writes every book of the offline library, one JSON object a line \
            (NDJSON), sorted by path: {"path", "id", "fields", "etag"}, where \
            fields are the book's fields but id, by name, and etag is the \
            version the server last proved. Writes not yet pushed are left \
            out: the export is what the server holds, as of the last pull \
            (standard error says how many are pending). lib import reads the \
            same lines back.

            The offline library must be complete: run lib pull first. Never \
            touches the network. With -o FILE the lines go to FILE, written \
            to a temporary file and renamed, readable by you alone, and a \
            summary goes to standard output.
            """,
        options: [deleted, output],
        examples: [
            .init("lib pull && lib export > library.ndjson", "The whole library, up to date, in a file."),
            .init("lib export --deleted -o library.ndjson", "With the deletions this device saw."),
        ],
        exitStatuses: .usual(success: "Written.", failure: "The offline library is not complete yet (run lib pull), or FILE could not be written."))

    struct Options: Equatable {
        var deleted: Bool
        var output: String?
    }

    static func options(_ parsed: ParsedCommand) throws -> Options {
        let file = parsed.text(output)
        if let file, file.isEmpty { throw UsageError("--output wants a file name", command: name) }
        return Options(deleted: parsed.isSet(deleted), output: file == "-" ? nil : file)
    }

    static func runsOnline(_ options: Options) -> Bool { false }

    static func run(_ options: Options, _ context: CommandContext) throws -> ExitCode {
        let workspace = try AccountWorkspace(context)
        let store = try completeLibrary(workspace, doing: "exported") { try AccountStore(readingFrom: $0) }
        let collection = ExportLine.collection + "/"
        var deletions: ArraySlice<String> = options.deleted ? try store.deletionsSeen.paths(under: collection)[...] : []
        var counts = (books: 0, deleted: 0)
        var text = ""
        let emit = { (line: ExportLine) in
            text += line.json.serialized() + "\n"
            if line.isDeleted { counts.deleted += 1 } else { counts.books += 1 }
            // To standard output a line at a time; to a file, whole, at the end.
            if options.output == nil, text.utf8.count >= 1 << 16 {
                context.standardOutput.write(text)
                text = ""
            }
        }
        // Deletions a pull saw are merged in path order; a book made again since is exported as it is now.
        let emitDeletions = { (before: String?) in
            while let path = deletions.first, before.map({ ExportLine.byteOrder(path, $0) }) ?? true {
                deletions.removeFirst()
                emit(ExportLine(id: String(path.dropFirst(collection.count)), fields: nil, etag: nil))
            }
        }
        try store.cache.forEachDocument(under: collection) { cached in
            emitDeletions(cached.path)
            if deletions.first == cached.path { deletions.removeFirst() }
            guard let line = ExportLine(cached: cached.path, body: cached.json, etag: cached.etag) else {
                throw CommandFailure("The cached copy of \(cached.path) is not a book; run `\(workspace.lib) pull` to refresh it.")
            }
            emit(line)
        }
        emitDeletions(nil)

        let pending = try store.outbox.counts()
        let unpushed = pending.pending + pending.conflicts + pending.rejected
        if let file = options.output {
            do { try PrivateFile.writeAtomically(file, text) } catch {
                throw CommandFailure("Nothing exported: \(error)")
            }
            if context.globalOptions.json {
                context.standardOutput.write(JSONValue.object(JSONObject([
                    ("account", .string(workspace.name)), ("file", .string(file)),
                    ("books", .integer(Int64(counts.books))), ("deleted", .integer(Int64(counts.deleted))),
                    ("pending_not_exported", .integer(Int64(unpushed))),
                ])).prettyPrinted() + "\n")
            } else if !context.globalOptions.quiet {
                let deletedWords = options.deleted ? " and \(Wording.count(counts.deleted, "deletion"))" : ""
                context.standardOutput.write("Exported \(Wording.count(counts.books, "book"))\(deletedWords) of \(workspace.name) to \(file).\n")
            }
        } else {
            context.standardOutput.write(text)
        }
        if unpushed > 0, !context.globalOptions.quiet {
            context.standardError.write("\(Wording.writes(unpushed)) of \(workspace.name) not yet on the server \(unpushed == 1 ? "is" : "are") not in the export: "
                                        + "run `\(workspace.lib) push`, then `\(workspace.lib) pull`, to include \(unpushed == 1 ? "it" : "them").\n")
        }
        return .success
    }

    /// The account's store, when its offline library is complete (a pull
    /// listed it whole): only then is a book missing from it missing from
    /// the server. `open` opens an existing store (read-only for export).
    static func completeLibrary(_ workspace: AccountWorkspace, doing what: String,
                                open: (String) throws -> AccountStore) throws -> AccountStore {
        let storePath = workspace.paths.storePath(workspace.name)
        let notComplete = "The offline library of \(workspace.name) is not complete, so nothing was \(what): run `\(workspace.lib) pull` first."
        guard access(storePath, F_OK) == 0 else { throw CommandFailure(notComplete) }
        let store = try open(storePath)
        guard try store.mirror(of: ExportLine.collection).cursor() != nil else { throw CommandFailure(notComplete) }
        return store
    }
}
