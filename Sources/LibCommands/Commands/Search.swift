#if canImport(Glibc)
import Glibc
#endif
import LibBase
import LibCLI
import LibJSON
import LibSync

/// `lib search TEXT ... [--sort FIELD] [--limit N]`: full text over the offline
/// library (LibrarySearch: FTS5 over title, author and tags, each word a
/// prefix, best matches first) with the unsent writes applied. Reads the
/// account's store only, opened read-only: never the network or the
/// keyring, so the static `lib` runs it.
enum Search: Verb {
    static let name = "search"

    static let text = ArgumentSpec("TEXT", .text, .oneOrMore, "Words to look for in titles, authors and tags")
    static let sortFields = ["relevance", "id", "title", "author", "year", "copies"]
    static let sort = OptionSpec.option(
        "sort", value: "FIELD", .choice(sortFields),
        "Order by FIELD (id, title, author, year, copies) instead of best match first")
    static let limit = OptionSpec.option("limit", value: "N", .text, "Show at most N books (default \(defaultLimit))")
    static let defaultLimit = 50

    static let command = CommandSpec(
        name: name,
        summary: "Search the offline library, pending writes included",
        discussion: """
            Looks for books on this device whose title, author or tags hold \
            every word of TEXT, each as the start of a word ("dun herb" finds \
            Dune by Frank Herbert; case and accents do not matter), best \
            matches first. Writes not yet pushed count: a book you renamed is \
            found by its new title, one you deleted is not found. Never \
            touches the network: run lib pull first to have the whole library \
            here. A table on a terminal (id, title, author, year), JSON \
            otherwise or with --json.

            Best match first means: a book titled exactly TEXT, then books \
            whose title holds every word, then books whose title and author \
            hold every word ("jane austen"), then by how well the words match \
            (a word in the title counts most, in the author less, in the tags \
            least; FTS5's bm25); ties by title, then by id with numbers in \
            order (g-999 before g-1103). When more books match than are \
            shown, the table is followed by "50 of 1,037 books" and the JSON \
            has total and truncated. When nothing matches, a word no indexed \
            word starts with is answered with the nearest one ("did you mean \
            'austen'?"). Ids are not searched: lib get PATH reads one. A word \
            said twice counts once; at most 32 different words.
            """,
        arguments: [text], options: [sort, limit],
        examples: [
            .init("lib search dune", "Books with a word starting with \"dune\"."),
            .init("lib search frank herb --sort year", "Frank Herbert's books, oldest first."),
            .init("lib --json search austen --limit 5", "The five best matches, as JSON."),
        ],
        exitStatuses: .usual(success: "Done, also when nothing matched.", failure: "Nothing of the account is on this device yet."))

    struct Options: Equatable {
        var query: SearchQuery
        var order: LibrarySearch.Order
        var limit: Int
    }

    static func options(_ parsed: ParsedCommand) throws -> Options {
        // `lib search jane austen` is one query, as `lib search 'jane austen'` is.
        let typed = parsed.arguments(text).joined(separator: " ")
        guard let query = SearchQuery(typed) else {
            throw UsageError("'\(typed)' has no word to search for (letters or digits)", command: name)
        }
        guard query.words.count <= SearchQuery.maxWords else {
            throw UsageError("a search takes at most \(SearchQuery.maxWords) different words; this one has \(query.words.count)",
                             command: name)
        }
        var order = LibrarySearch.Order.relevance
        if let field = parsed.text(sort), field != "relevance" { order = .field(field) }
        var count = defaultLimit
        if let text = parsed.text(limit) {
            guard let n = Int(text), (1...100_000).contains(n) else {
                throw UsageError("--limit wants a number from 1 to 100000, not '\(text)'", command: name)
            }
            count = n
        }
        return Options(query: query, order: order, limit: count)
    }

    static func runsOnline(_ options: Options) -> Bool { false }

    static func run(_ options: Options, _ context: CommandContext) throws -> ExitCode {
        let workspace = try AccountWorkspace(context)
        let storePath = workspace.paths.storePath(workspace.name)
        guard access(storePath, F_OK) == 0 else {
            throw CommandFailure("Nothing of \(workspace.name) is on this device yet: run `\(workspace.lib) pull` while online")
        }
        let store = try AccountStore(readingFrom: storePath)
        let found = try store.search.find(options.query, order: options.order, limit: options.limit)
        let views = found.books.map { DocumentView(path: $0.path, serverCopy: $0.cached, outboxItems: $0.writes) }
        let nothingFound = views.isEmpty ? try nothingFound(options.query, in: store) : ""
        if context.globalOptions.json || !context.standardOutput.isTerminal {
            context.standardOutput.write(json(views, options, account: workspace.name, found: found).prettyPrinted() + "\n")
            if !nothingFound.isEmpty, !context.globalOptions.quiet { context.standardError.write(nothingFound) }
        } else if views.isEmpty {
            context.standardOutput.write(nothingFound)
        } else {
            let table = DocumentRendering.table(views, width: context.outputWidth, painter: context.outputPainter, inGivenOrder: true)
            Pager(context: context).show(table, context)
            if found.truncated, !context.globalOptions.quiet {
                context.standardError.write("\(Wording.number(views.count)) of \(Wording.count(found.total, "book")) — use --limit to see more.\n")
            }
        }
        if !context.globalOptions.quiet, try store.mirror(of: "books").cursor() == nil {
            context.standardError.write("Only the books cached on this device were searched: run `\(workspace.lib) pull` for the whole library.\n")
        }
        return .success
    }

    /// "No book on this device matches 'austin'; did you mean 'austen'?"
    /// (SearchSuggestion), or without the question when nothing is near.
    static func nothingFound(_ query: SearchQuery, in store: AccountStore) throws -> String {
        let quoted = { (query: SearchQuery) in "'\(TerminalText.escaped(query.words.joined(separator: " ")))'" }
        let question = try store.search.suggestion(for: query).map { "; did you mean \(quoted($0))?" } ?? "."
        return "No book on this device matches \(quoted(query))\(question)\n"
    }

    /// `{"account", "query", "items": [books, each with `_pending` when unsent
    /// writes are applied], "total": how many match, "truncated": items < total}`
    static func json(_ views: [DocumentView], _ options: Options, account: String, found: LibrarySearch.Found) -> JSONValue {
        // Each item as `lib get` shows a book (DocumentRendering), member for member.
        .object(JSONObject([
            ("account", .string(account)), ("query", .array(options.query.words.map { .string($0) })),
            ("items", .array(views.map(DocumentRendering.jsonValue))),
            ("total", .integer(Int64(found.total))), ("truncated", .bool(found.truncated)),
        ]))
    }
}
