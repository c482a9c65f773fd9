import LibAccounts
import LibCLI
import LibJSON
import LibStore
import LibSync
#if canImport(Glibc)
import Glibc
import LibBase
import LibClient
#endif

/// `lib status [--short | --porcelain | --prompt] [--all]`: what waits to be
/// sent, write by write, from local files only — no network, no D-Bus, no
/// keyring. `--prompt` is the compact one-liner for shell prompts, read
/// from the outbox's counts alone.
enum Status: Verb {
    static let name = "status"

    static let short = OptionSpec.flag(
        "short", short: "s", "One line per pending write or conflict",
        details: "git's status --short shape: '## ACCOUNT', then 'XY PATH' per write; X is A (create), M (change) or D (delete), Y is a space (pending), S (sent, no answer yet), U (conflict) or R (rejected).")
    static let porcelain = OptionSpec.flag(
        "porcelain", "Stable output for scripts",
        details: "The account's counters as 'key value' lines, then one 'write STATUS KIND ATTEMPTS CREATED PATH FIELDS' line per write, then a blank line (CLI.md in /usr/share/doc/lib).")
    static let prompt = OptionSpec.flag(
        "prompt", "The account's segment for a shell prompt",
        details: "The account's alias, or its user name (with the host, or the port, when another account shares it; cut to 20 characters), then the writes pending, conflicts, rejected and set aside, each a mark and a count: 'alice +3 =1 x2 ~4' when the locale is not UTF-8, arrows and symbols when it is; then what waits in the other accounts, added up ('alice +3 | +1'); nothing at all when nothing waits. Read from the accounts' prompt files, which the snippets in /usr/share/lib/prompt read without starting lib.")
    static let all = OptionSpec.flag("all", "Show every signed-in account")

    static let command = CommandSpec(
        name: name, summary: "Show pending writes, conflicts and the account",
        discussion: """
            Shows the account, then each write waiting to be pushed and each \
            conflict and rejected write that needs a decision: its path, kind \
            (create, change, delete), the fields it changes, its age, and for \
            a write a push already sent, the attempts and the last error. \
            Reads this device only: never the network, D-Bus or the keyring.

            --porcelain and --json print formats for scripts that do not change \
            between versions. --prompt is the one-liner for shell prompts.
            """,
        options: [short, porcelain, prompt, all],
        exclusiveGroups: [[short.name, porcelain.name, prompt.name]],
        examples: [
            .init("lib status", "What is pending for the current account, write by write."),
            .init("lib status --short", "The same, one line per write."),
            .init("lib status --prompt", "One line, for a shell prompt."),
            .init("lib status --porcelain --all", "Every account, for a script."),
        ],
        exitStatuses: [.init(.success), .init(.failure), .init(.usage)])

    struct Line {
        let account: String
        let current: Bool
        let summary: OutboxSummary
        let setAside: Int
        /// The account's writes, oldest first (not read for `--prompt`).
        let writes: [WriteDescription]
        /// How its hints start: `lib`, or `lib -A NAME` (`AccountWorkspace.lib`).
        var lib = "lib"
        /// What chose the account (`account_source`); nil with `--all`.
        var source: AccountSelection.Source?
        /// What the server last said and when the library was last pulled
        /// whole (not read for `--prompt`).
        var sync = SyncState()
    }

    /// Behind by (as the server last said), the last contact and the last complete pull.
    struct SyncState {
        var heard = ServerContact.Heard()
        var lastCompletePull: UnixSeconds?
        /// The mass-change guard's refusal of the last push (as from cron), until a push passes.
        var refusal: MassChangeRefusal?

        /// Read without creating or migrating anything; nothing known when the store cannot be read.
        static func read(storePath: String) -> SyncState {
            guard access(storePath, F_OK) == 0, let store = try? AccountStore(readingFrom: storePath) else { return SyncState() }
            return SyncState(heard: (try? store.contact.heard()) ?? ServerContact.Heard(),
                             lastCompletePull: try? store.mirror(of: Pull.collection.description).lastPulled(),
                             refusal: (try? MassChangeRefusal.recorded(in: store)) ?? nil)
        }
    }

    enum Format { case long, short, porcelain, prompt, json }

    struct Options {
        var prompt: Bool
        var porcelain: Bool
        var short: Bool
        var all: Bool
    }

    static func options(_ parsed: ParsedCommand) throws -> Options {
        Options(prompt: parsed.isSet(prompt), porcelain: parsed.isSet(porcelain), short: parsed.isSet(short), all: parsed.isSet(all))
    }

    static func runsOnline(_ options: Options) -> Bool { false }

    static func format(_ options: Options, _ context: CommandContext) -> Format {
        if options.prompt { return .prompt }
        if context.globalOptions.json { return .json }
        if options.porcelain { return .porcelain }
        if options.short { return .short }
        return .long
    }

    /// Every account with `--all`, else the one in effect and what chose
    /// it; nil when no account was asked for and none is signed in.
    static func selectedAccounts(all: Bool, _ index: AccountIndex, _ context: CommandContext)
        throws -> [(account: Account, source: AccountSelection.Source?)]? {
        if all { return index.accounts.map { ($0, nil) } }
        if !context.namesAccount && index.accounts.isEmpty { return nil }
        let choice = try context.chooseAccount(in: index)
        return [(choice.account, choice.source)]
    }

    static func run(_ options: Options, _ context: CommandContext) throws -> ExitCode {
        // The prompt's segment reads the prompt file, not the store.
        if options.prompt { return try StatusPrompt.run(all: options.all, context) }
        let format = format(options, context)
        let directories = try context.directories
        let paths = AccountPaths(directories: directories)
        let index = try AccountIndex.load(from: directories.config)
        let elsewhere = WaitingElsewhere(context: context, paths: paths, index: index)
        guard let accounts = try selectedAccounts(all: options.all, index, context) else {
            return notSignedIn(format, context, setAside: elsewhere.setAsideWithoutAccount())
        }
        for (account, _) in accounts {
            AccountWorkspace(context, paths: paths, index: index, account: account).writePromptFileIfMissing()
        }
        let setAside = SetAsideOutboxes(directory: paths.setAsideDirectory)
        // A store that exists but cannot be read is never reported as empty:
        // it may hold the only copy of unsent writes (the prompt line stays
        // as it is: it must never print a problem into a prompt).
        var damaged: [String] = []
        let lines = accounts.compactMap { account, source -> Line? in
            let storePath = paths.storePath(account.name)
            if format != .prompt, let problem = damage(storePath: storePath, account: account.name) {
                damaged.append(problem)
                return nil
            }
            return Line(account: account.name, current: account.name == index.currentName,
                        summary: OutboxSummary.read(storePath: storePath),
                        setAside: setAside.count(for: SetAsideOutboxes.identityKey(origin: account.origin.description, userID: account.userID)),
                        writes: format == .prompt ? [] : OutboxSummary.writes(storePath: storePath),
                        lib: AccountWorkspace(context, paths: paths, index: index, account: account).lib, source: source,
                        sync: format == .prompt ? SyncState() : SyncState.read(storePath: storePath))
        }
        let now = context.now().secondsSince1970
        switch format {
        case .prompt:
            break
        case .json:
            context.standardOutput.write(JSONValue.array(lines.map { json($0, now: now) }).serialized() + "\n")
        case .porcelain:
            for line in lines { context.standardOutput.write(porcelain(line)) }
        case .short:
            for line in lines { context.standardOutput.write(short(line)) }
        case .long:
            context.standardOutput.write(lines.map { long($0, now: now, painter: context.outputPainter) }.joined(separator: "\n"))
            let others = elsewhere.otherAccounts(besides: accounts.map(\.account), verb: "push") + elsewhere.setAsideWithoutAccount()
            if !others.isEmpty { context.standardOutput.write("\n" + others.joined(separator: "\n") + "\n") }
        }
        for problem in damaged { context.standardError.write("\(ProgramInfo.name): \(problem)\n") }
        return damaged.isEmpty ? .success : .failure
    }

    /// Why the store cannot be read, or nil when it can (or does not exist yet).
    /// Its counters and its list of writes are both read, and must agree: a
    /// page of noise can spare one and not the other, and counters shown
    /// without their writes (or none shown for writes that exist) would hide
    /// what waits to be sent.
    private static func damage(storePath: String, account: String) -> String? {
        guard access(storePath, F_OK) == 0 else { return nil }
        do {
            let outbox = try AccountStore(readingFrom: storePath).outbox
            let counts = try outbox.counts()
            let items = try outbox.all()
            let listed = (pending: items.filter { $0.status == .pending }.count, conflicts: items.filter { $0.status == .conflict }.count,
                          rejected: items.filter { $0.status == .rejected }.count)
            guard listed == counts else {
                // SQLITE_CORRUPT (11): reported as SQLite's own damage is, with how to keep the writes.
                throw DatabaseError(extendedCode: 11, message: "its counters say \(counts.pending + counts.conflicts + counts.rejected) "
                                    + "writes, its list holds \(items.count)", path: storePath)
            }
            return nil
        } catch let error as DatabaseError where error.isCorrupt {
            return "The store of \(account) is damaged: \(error.message)"
        } catch let error as any ReportableError {
            return "The store of \(account) cannot be read: \(error.message)"
        } catch {
            return "The store of \(account) cannot be read (\(storePath)): \(error)"
        }
    }

    private static func notSignedIn(_ format: Format, _ context: CommandContext, setAside: [String]) -> ExitCode {
        switch format {
        case .json: context.standardOutput.write("[]\n")
        case .long: context.standardOutput.write((["Not signed in. Run `lib login SERVER_URL`."] + setAside).joined(separator: "\n") + "\n")
        case .short, .porcelain, .prompt: break
        }
        return .success
    }

    // MARK: --short

    /// git's `status --short` shape: `## ACCOUNT`, then `XY PATH` per write.
    /// X is the kind (A create, M change, D delete); Y the state (space:
    /// pending, S: sent and no answer came, U: conflict, R: rejected).
    static func short(_ line: Line) -> String {
        var text = "## \(line.account)\(line.setAside > 0 ? " (\(line.setAside) set aside)" : "")\n"
        for write in line.writes { text += "\(shortCode(write)) \(write.path)\n" }
        return text
    }

    static func shortCode(_ write: WriteDescription) -> String {
        let kind: Character = switch write.kind { case .create: "A"; case .change: "M"; case .delete: "D" }
        let state: Character = switch write.item.status {
        case .pending: write.item.mayBeOnServer ? "S" : " "
        case .conflict: "U"
        case .rejected: "R"
        }
        return String([kind, state])
    }

    // MARK: --porcelain

    /// Stable `key value` lines for scripts, then one `write` line per
    /// write, then a blank line (docs/CLI.md, "status --porcelain").
    static func porcelain(_ line: Line) -> String {
        var lines = [
            "account \(line.account)", "current \(line.current)", "pending \(line.summary.pending)",
            "conflicts \(line.summary.conflicts)", "rejected \(line.summary.rejected)", "set-aside \(line.setAside)",
        ]
        for write in line.writes {
            let fields = write.fields.isEmpty ? "-" : write.fields.map(porcelainWord).joined(separator: ",")
            lines.append("write \(write.item.status.rawValue) \(write.kind.rawValue) \(write.item.attempts) \(Int64(write.item.createdAt)) \(write.path) \(fields)")
        }
        return lines.joined(separator: "\n") + "\n\n"
    }

    /// A field name with `%`, `,`, spaces and control characters percent-encoded.
    static func porcelainWord(_ text: String) -> String {
        var result = ""
        for byte in text.utf8 {
            if byte <= 0x20 || byte == 0x7F || byte == UInt8(ascii: "%") || byte == UInt8(ascii: ",") {
                result += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            } else {
                result += String(decoding: [byte], as: UTF8.self)
            }
        }
        return result
    }

    // MARK: Human text

    /// On a terminal, what waits is yellow and what needs a decision red.
    static func long(_ line: Line, now: Double, painter: TextPainter = TextPainter(isEnabled: false)) -> String {
        var text = "On \(painter.paint(line.account, .bold))\(chosen(line))\n"
        let s = line.summary
        if s.isEmpty { text += painter.paint("Nothing waiting to be sent.", .green) + "\n" }
        let groups: [(OutboxItem.Status, String, String, TextStyle)] = [
            (.pending, "\(Wording.writes(s.pending).capitalizedFirst) pending",
             ": run `\(line.lib) push` to send \(s.pending == 1 ? "it" : "them"), `\(line.lib) diff` to see \(s.pending == 1 ? "it" : "them").", .yellow),
            (.conflict, "\(Wording.count(s.conflicts, "conflict").capitalizedFirst) to settle", ": run `\(line.lib) resolve PATH`.", .red),
            (.rejected, "\(Wording.count(s.rejected, "write").capitalizedFirst) rejected by the server", ": run `\(line.lib) resolve PATH`.", .red),
        ]
        for (status, lead, rest, style) in groups {
            let writes = line.writes.filter { $0.item.status == status }
            guard !writes.isEmpty else { continue }
            text += painter.paint(lead, style) + rest + "\n"
            let kindWidth = writes.map { $0.kind.rawValue.count }.max() ?? 0
            let pathWidth = writes.map(\.path.count).max() ?? 0
            for write in writes {
                text += "  " + write.kind.rawValue.padding(to: kindWidth) + "  " + write.path.padding(to: pathWidth)
                text += "  " + detail(write, now: now) + "\n"
            }
        }
        if line.setAside > 0 {
            text += "\(Wording.writes(line.setAside).capitalizedFirst) set aside at logout (restored at your next `\(line.lib) login`).\n"
        }
        text += sync(line, now: now, painter: painter)
        return text
    }

    /// "3 books changed on the server since your last pull (it said so 2
    /// minutes ago): run `lib pull`.", and for an offline library when it
    /// was last pulled whole and, when later, when the server last answered.
    static func sync(_ line: Line, now: Double, painter: TextPainter) -> String {
        let heard = line.sync.heard
        var text = ""
        if let refusal = line.sync.refusal {
            text += painter.paint(MassChangeWords.kept(refusal, lib: line.lib).capitalizedFirst, .red) + ".\n"
        }
        if let behind = heard.behind, behind > 0, let at = heard.behindAt {
            let books = behind >= 100_000 ? "At least 100,000 books" : Wording.count(behind, "book").capitalizedFirst
            text += painter.paint("\(books) changed on the server since your last pull", .yellow)
                + " (it said so \(AgeWording.describe(seconds: now - at))): run `\(line.lib) pull`.\n"
        }
        // Only for an offline library: without one, nothing here goes stale.
        guard let pulled = line.sync.lastCompletePull else { return text }
        text += "Last complete pull \(AgeWording.describe(seconds: now - pulled))"
        if let contact = heard.lastContact, contact > pulled {
            text += "; last contact with the server \(AgeWording.describe(seconds: now - contact))"
        }
        return text + ".\n"
    }

    /// Why this account, when not as the default: " (the rule for ~/work)".
    static func chosen(_ line: Line) -> String {
        switch line.source {
        case .rule(let directory): " (the rule for \(TerminalText.escaped(directory)))"
        case .option, .environment, .current, nil: line.current ? "" : " (not the current account)"
        }
    }

    /// "title, year · 2 minutes ago · sent at 10:02, no answer (2 attempts): …".
    static func detail(_ write: WriteDescription, now: Double) -> String {
        var parts: [String] = []
        switch write.kind {
        case .delete: parts.append("deletes it")
        case .create, .change: parts.append(write.fields.isEmpty ? "no field changed" : write.fields.joined(separator: ", "))
        }
        parts.append(AgeWording.describe(seconds: now - write.item.createdAt))
        let item = write.item
        if item.mayBeOnServer {
            var sent = "sent at \(LocalTime.describe(item.updatedAt, now: now)), no answer (\(Wording.count(item.attempts, "attempt")))"
            if let error = item.lastError { sent += ": \(error)" }
            parts.append(sent)
        } else if let error = item.lastError {
            parts.append("last error: \(error)")
        }
        if item.status == .rejected { parts.append(item.problem ?? "no reason given") }
        return TerminalText.escaped(parts.joined(separator: " · "))
    }

    // MARK: --json

    static func json(_ line: Line, now: Double) -> JSONValue {
        let s = line.summary
        return .object(JSONObject([
            ("account", .string(line.account)), ("current", .bool(line.current)), ("pending", .integer(Int64(s.pending))),
            ("conflicts", .integer(Int64(s.conflicts))), ("rejected", .integer(Int64(s.rejected))),
            ("set_aside", .integer(Int64(line.setAside))), ("writes", .array(line.writes.map(json))),
        ] + source(line.source) + sync(line.sync)))
    }

    /// `account_source` (option, environment, rule, current) and, for a
    /// rule, `account_rule` (its directory); nothing with `--all`.
    static func source(_ source: AccountSelection.Source?) -> [(String, JSONValue)] {
        switch source {
        case nil: []
        case .rule(let directory): [("account_source", .string("rule")), ("account_rule", .string(directory))]
        case let source?: [("account_source", .string(source.name))]
        }
    }

    /// `behind` (books changed on the server and not pulled, as it last
    /// said; null when it never said) and `behind_at`, `last_contact`,
    /// `last_complete_pull` (unix seconds, or null).
    static func sync(_ sync: SyncState) -> [(String, JSONValue)] {
        func seconds(_ time: UnixSeconds?) -> JSONValue { time.map { .integer(Int64($0.rounded(.down))) } ?? .null }
        return [("behind", sync.heard.behind.map { JSONValue.integer(Int64($0)) } ?? .null), ("behind_at", seconds(sync.heard.behindAt)),
                ("last_contact", seconds(sync.heard.lastContact)), ("last_complete_pull", seconds(sync.lastCompletePull)),
                ("mass_change_refused", sync.refusal.map(MassChangeWords.json) ?? .null)]
    }

    /// One write: `path`, `kind`, `status`, `fields`, `created_at` (unix
    /// seconds), `attempts`, `sent_without_answer`, `last_error`, `problem`.
    static func json(_ write: WriteDescription) -> JSONValue {
        let item = write.item
        var object = JSONObject([
            ("path", .string(write.path)), ("kind", .string(write.kind.rawValue)), ("status", .string(item.status.rawValue)),
            ("fields", .array(write.fields.map { .string($0) })), ("created_at", .integer(Int64(item.createdAt.rounded(.down)))),
            ("attempts", .integer(Int64(item.attempts))), ("sent_without_answer", .bool(item.mayBeOnServer)),
        ])
        if item.mayBeOnServer { object["sent_at"] = .integer(Int64(item.updatedAt.rounded(.down))) }
        object["last_error"] = item.lastError.map { .string($0) } ?? .null
        object["problem"] = item.problem.map { .string($0) } ?? .null
        return .object(object)
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
