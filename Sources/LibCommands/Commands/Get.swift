#if canImport(Glibc)
import Glibc
#endif
import LibCLI
import LibJSON
import LibSync
import LibBase
import LibClient

/// `lib get PATH [--offline | --fresh] [--timeout SECONDS]`: the fresh
/// document when the server answers, else the last known copy, labelled on
/// standard error with its age and the reason (DESIGN.md, "Reads").
enum Get: Verb {
    static let name = "get"

    static let path = ArgumentSpec("PATH", .collectionOrPath, .required, "Resource path, such as books or books/b-7")
    static let offline = OptionSpec.flag("offline", "Print the cached copy; never touch the network")
    static let fresh = OptionSpec.flag("fresh", "Fail (exit 75) rather than show the cached copy")
    static let timeout = OptionSpec.option(
        "timeout", value: "DURATION", .duration,
        "Give up on the server after DURATION (90, 90s, 2m, 1.5)")

    static let command = CommandSpec(
        name: name, summary: "Print a resource, fresh or from the cache",
        discussion: """
            Fetches PATH from the server and prints it. When the server cannot \
            be reached (offline, unreachable, 5xx, timed out), prints the cached \
            copy instead and says on standard error how old it is and why, for \
            example "Showing the copy from 3 hours ago. You're offline."

            When a copy is cached, the server has 2 seconds (or --timeout) to \
            answer before the copy is shown: the last known data at once. \
            Without one, lib waits as long as its usual timeouts.

            Writes still waiting in the outbox are shown applied and marked as \
            pending, never as done. A collection such as books is brought up to \
            date as lib pull does (the first time every page, then only what \
            changed since) and printed from this device.
            """,
        arguments: [path], options: [offline, fresh, timeout],
        exclusiveGroups: [[offline.name, fresh.name]],
        examples: [
            .init("lib get books/b-7", "Print the book, from the server if it can be reached."),
            .init("lib get books --offline", "List the cached books without touching the network."),
            .init("lib --json get books/b-7 --fresh --timeout 2.5", "Only a fresh copy will do."),
        ],
        exitStatuses: .usual(success: "Done, also when the cached copy was shown instead (said on standard error).", failure: "Not found, or not cached with --offline.", also: [
            .init(.authentication),
            .init(.temporaryFailure, "The server could not be reached, with --fresh or with nothing cached."),
        ]))

    enum Freshness { case preferFresh, offline, fresh }

    struct Options {
        var path: ResourcePath
        var freshness: Freshness
        var timeout: Double?
    }

    static func options(_ parsed: ParsedCommand) throws -> Options {
        let path: ResourcePath
        do { path = try ResourcePath.argument(parsed.argument(Get.path) ?? "") } catch {
            throw UsageError(error.message, command: Get.command.name)
        }
        let freshness: Freshness = parsed.isSet(Get.offline) ? .offline : parsed.isSet(Get.fresh) ? .fresh : .preferFresh
        return Options(path: path, freshness: freshness, timeout: parsed.seconds(Get.timeout))
    }

    static func runsOnline(_ options: Options) -> Bool { options.freshness != .offline }

    static func run(_ options: Options, _ context: CommandContext) throws -> ExitCode {
        let workspace = try AccountWorkspace(context)
        if options.freshness == .offline { return try showOffline(options.path, workspace) }

        let store = try workspace.openStore()
        let before = try LocalCopy.read(options.path, from: store)
        let cached = try store.cache.document(at: options.path.description)
        let answer: ServerAnswer
        let api: ServerAPI
        do {
            // The last known data at once: with a copy to fall back on, the
            // network gets a short budget; without one, the usual timeouts.
            let budget = options.timeout ?? (before != nil && options.freshness == .preferFresh ? Self.budgetWithCopy : nil)
            var reads = workspace.api(token: try workspace.token(), timeout: budget)
            reads.deadline = budget.map { MonotonicClock.now() + $0 }
            api = reads
            try BookSchemaRefresh.ifMissing(api, store: store, now: context.now().secondsSince1970)
            let rules = try BookRules.forAccount(store)
            if options.path.isDocument {
                answer = .document(try ResourceFetcher(api: api, rules: rules).document(options.path, cachedETag: cached?.etag))
            } else {
                // The same path as `lib pull`: after the first time, only what changed.
                var pull = store.pull(options.path, from: HTTPLibrarySource(options.path, api: api, rules: rules), context)
                pull.budget = PullBudget().overridden(by: context.environment)
                answer = .collection(try pull.run())
            }
        } catch {
            let explained = workspace.explained(error)
            guard options.freshness != .fresh, let before else { throw explained }
            return try fallBack(to: before, after: explained, context)
        }
        BookSchemaRefresh.ifStale(api, store: store, now: context.now().secondsSince1970)
        try record(answer, for: options.path, hadCopy: cached != nil, in: store, workspace)
        guard let after = try LocalCopy.read(options.path, from: store) else {
            throw CommandFailure("\(options.path) is not on \(workspace.account.origin.hostAndPort)")
        }
        present(after, label: nil, context)
        return .success
    }

    /// Seconds the server has to answer when a copy could be shown instead
    /// (`--timeout` overrides it).
    static let budgetWithCopy = 2.0

    /// What the server said about the path.
    enum ServerAnswer {
        case document(ResourceFetcher.DocumentAnswer)
        /// The pull (already stored), or nil when the server has no such collection.
        case collection(LibraryPull<HTTPLibrarySource>.Outcome?)
    }

    /// Records the server's answer in the cache: a new copy, a revalidated
    /// one, or (404) a forgotten one, which fails unless unsent writes remain
    /// to be shown.
    private static func record(_ answer: ServerAnswer, for path: ResourcePath, hadCopy: Bool, in store: AccountStore,
                               _ workspace: AccountWorkspace) throws {
        let now: UnixSeconds = workspace.context.now().secondsSince1970
        let server = workspace.account.origin.hostAndPort
        switch answer {
        case .document(.fresh(let body, let etag)): try store.cache.save(path.description, body: body, etag: etag, at: now)
        case .document(.notModified): try store.cache.markValidated(path.description, at: now)
        case .document(.notFound):
            try store.cache.forget(path.description)
            if try store.outbox.items(for: path.description).isEmpty {
                throw CommandFailure("\(path) is not on \(server)\(hadCopy ? "; the cached copy was forgotten" : "")")
            }
        case .collection(_?): break
        case .collection(nil): throw CommandFailure("\(path) is not on \(server)")
        }
    }

    /// `--offline`: the store only, opened read-only; nothing cached is a failure (exit 1).
    private static func showOffline(_ path: ResourcePath, _ workspace: AccountWorkspace) throws -> ExitCode {
        let storePath = workspace.paths.storePath(workspace.name)
        // A missing store (nothing read yet) is "not cached", not an error.
        let store = access(storePath, F_OK) == 0 ? try AccountStore(readingFrom: storePath) : nil
        let copy = try store.flatMap { try LocalCopy.read(path, from: $0) }
        workspace.writePromptFileIfMissing()
        guard let copy else {
            if let seen = try store?.deletionsSeen.seenAt(path.description) {
                throw CommandFailure("\(path) was deleted on the server (the pull of \(LocalTime.stamp(seen)) saw it gone).",
                                     reason: "deleted-on-server")
            }
            throw CommandFailure("\(path) is not cached for \(workspace.name): run `lib get \(path)` while online")
        }
        let context = workspace.context
        present(copy, label: context.globalOptions.quiet ? nil : ageLabel(copy, context),
                cached: cachedNote(copy, reason: "offline-requested", message: "--offline: the network was not asked", context), context)
        return .success
    }

    /// Shows the copy from before the request failed. A temporary failure
    /// (offline, unreachable, 5xx, timeout) is only explained (exit 0); any
    /// other still fails, after the copy is shown.
    private static func fallBack(to copy: LocalCopy, after error: any Error, _ context: CommandContext) throws -> ExitCode {
        let label = ageLabel(copy, context)
        let (message, code) = explanation(of: error)
        let reason = (error as? CommandFailure)?.reason ?? "failure"
        let cached = cachedNote(copy, reason: reason, message: message, context)
        if code == .temporaryFailure {
            // -q: a fallback that heals by itself says nothing.
            present(copy, label: context.globalOptions.quiet ? nil : label + " " + message, cached: cached, context)
            return .success
        }
        present(copy, label: label, cached: cached, context)
        throw error
    }

    /// `{"age_seconds", "reason", "message"}`: why the copy came from the
    /// cache, for `--json` (the age is null for what was never on the server).
    static func cachedNote(_ copy: LocalCopy, reason: String, message: String, _ context: CommandContext) -> JSONValue {
        let age = copy.confirmedAt.map { JSONValue.integer(Int64(max(0, context.now().secondsSince1970 - $0).rounded(.down))) }
        return .object(JSONObject([("age_seconds", age ?? .null), ("reason", .string(reason)), ("message", .string(message))]))
    }

    /// "Showing the copy from 3 hours ago."
    static func ageLabel(_ copy: LocalCopy, _ context: CommandContext) -> String {
        guard let confirmedAt = copy.confirmedAt else { return "Showing only what is saved on this device." }
        let age = AgeWording.describe(seconds: context.now().secondsSince1970 - confirmedAt)
        return age == "just now" ? "Showing the copy saved just now." : "Showing the copy from \(age)."
    }

    /// The sentence and exit code an error is reported with.
    private static func explanation(of error: any Error) -> (String, ExitCode) {
        let failure = CommandFailure(reporting: error)
        return (failure.message, failure.exitCode)
    }

    /// The copy on standard output (text on a terminal, else JSON); the
    /// label and the unsent writes on standard error.
    /// `cached`: the copy is the cache's, for `--json` only (a pipe without
    /// `--json` keeps the server's document as it is).
    static func present(_ copy: LocalCopy, label: String?, cached: JSONValue? = nil, _ context: CommandContext) {
        let json = context.globalOptions.json || !context.standardOutput.isTerminal
        let note = context.globalOptions.json ? cached : nil
        let output: String
        if copy.path.isDocument, let view = copy.views.first {
            output = json ? DocumentRendering.json(view, cached: note) : DocumentRendering.text(view)
        } else {
            output = json ? DocumentRendering.json(collection: copy.views, cached: note)
                : DocumentRendering.table(copy.views, width: context.outputWidth, painter: context.outputPainter)
        }
        Pager(context: context).show(output, context)
        if let label { context.standardError.write(label + "\n") }
        if let notice = PendingWrites.notice(copy.views.compactMap(\.pending)) { context.standardError.write(notice) }
    }
}
