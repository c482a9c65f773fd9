#if canImport(Glibc)
import Glibc
#endif
import LibAccounts
import LibCLI
import LibJSON
import LibSync
import LibBase

/// `lib push --dry-run` (`-n`): per account (every signed-in one with
/// `--all`), each write in the order a push takes it (`PushPlan`): what
/// would be sent, with its precondition, and what waits behind a conflict
/// or needs `lib resolve`, then what the mass-change guard counts and
/// whether it would refuse the push. Reads the stores read-only: sends nothing,
/// claims nothing, changes nothing, needs neither the network nor the
/// keyring.
enum PushDryRun {
    /// `massChangeGuard`: the guard a push would be held to (nil: off or `--force`).
    static func run(all: Bool, guard massChangeGuard: MassChangeGuard?, _ context: CommandContext) throws -> ExitCode {
        let directories = try context.directories
        let paths = AccountPaths(directories: directories)
        let index = try AccountIndex.load(from: directories.config)
        let accounts: [Account]
        if all {
            accounts = index.accounts
        } else {
            accounts = [try context.chooseAccount(in: index).account]
        }
        guard !accounts.isEmpty else {
            throw CommandFailure("Not signed in: run `lib login SERVER_URL`.", exitCode: .authentication)
        }
        var plans: [(account: String, plan: PushPlan)] = []
        var changes: [String: MassChange] = [:]
        var hints: [String: String] = [:]
        for account in accounts {
            hints[account.name] = AccountWorkspace(context, paths: paths, index: index, account: account).lib
            let storePath = paths.storePath(account.name)
            let store = access(storePath, F_OK) == 0 ? try AccountStore(readingFrom: storePath) : nil
            let items = try store?.outbox.all() ?? []
            plans.append((account.name, PushPlan(items: items)))
            changes[account.name] = MassChange(items: items, books: try store?.cache.count(under: "books/") ?? 0)
        }
        if context.globalOptions.json {
            context.standardOutput.write(json(plans, changes: changes, guard: massChangeGuard).prettyPrinted() + "\n")
            return .success
        }
        var text = ""
        for (account, plan) in plans {
            text += text.isEmpty ? "" : "\n"
            text += "A push for \(account) would send (dry run: nothing is sent or changed):\n"
            if plan.steps.isEmpty { text += "  nothing: no writes are waiting\n" }
            var number = 0
            for step in plan.steps {
                text += "  "
                text += TerminalText.escaped(line(step, number: &number, lib: hints[account] ?? "lib"))
                text += "\n"
            }
            let waiting = plan.steps.count - plan.sendCount
            if !plan.steps.isEmpty {
                text += "\(Wording.writes(plan.sendCount).capitalizedFirst) would be sent"
                text += waiting > 0 ? "; \(waiting) would wait for `\(hints[account] ?? "lib") resolve`.\n" : ".\n"
                // Only when some write deletes or blanks: the everyday dry run stays as short as it was.
                if let change = changes[account], change.destructive > 0 {
                    text += guardLine(change, guard: massChangeGuard, lib: hints[account] ?? "lib") + "\n"
                }
            }
        }
        context.standardOutput.write(text)
        return .success
    }

    /// "They delete or blank fields of 312 of 1,000 books: the mass-change
    /// guard (at most 200) would refuse the push (lib push --force)."
    static func guardLine(_ change: MassChange, guard massChangeGuard: MassChangeGuard?, lib: String) -> String {
        let counted = "They delete or blank fields of \(Wording.number(change.destructive)) of \(Wording.count(change.books, "book")) in the offline library"
        guard let rule = massChangeGuard else { return counted + "; the mass-change guard is off." }
        let allowed = Wording.number(rule.allowed(ofTotal: change.books))
        return rule.refuses(change.destructive, ofTotal: change.books)
            ? counted + ": the mass-change guard (at most \(allowed)) would refuse the push, exit 5 (\(lib) push --force if you mean it)."
            : counted + ": within the mass-change guard (at most \(allowed))."
    }

    /// `1. PUT books/b-9 change title="New" (If-Match "2-ab")`, or a waiting write.
    static func line(_ step: PushPlan.Step, number: inout Int, lib: String = "lib") -> String {
        let item = step.item
        let what = "\(item.method.rawValue) \(item.path) \(item.kind.rawValue)"
            + (item.kind == .delete ? "" : " " + PushedLogView.fieldsText(item.intent))
        switch step {
        case .send(_, let precondition):
            number += 1
            var text = "\(number). \(what) (\(preconditionText(precondition)))"
            if item.mayBeOnServer { text += ", again with the same key: it was sent and no answer came" }
            return text
        case .needsResolving:
            return "-  \(what): \(item.status == .conflict ? "a conflict" : "rejected"), waits for `\(lib) resolve \(item.path)`"
        case .waitsBehind:
            return "-  \(what): waits behind the conflict of \(item.path) (`\(lib) resolve \(item.path)`)"
        }
    }

    static func preconditionText(_ precondition: PushPlan.Precondition) -> String {
        switch precondition {
        case .create: "If-None-Match: *"
        case .ifMatch(let etag): "If-Match: \(etag)"
        case .afterPrevious: "If-Match: the version the write before it makes"
        case .none: "no precondition known"
        }
    }

    /// `{"dry_run": true, "accounts": [{account, writes: [{path, kind, method, fields, action, precondition, sent_without_answer}],
    /// mass_change: {destructive_books, books, allowed, refused}}]}` (docs/json/push-dry-run.schema.json).
    static func json(_ plans: [(account: String, plan: PushPlan)], changes: [String: MassChange] = [:],
                     guard massChangeGuard: MassChangeGuard? = .standard) -> JSONValue {
        .object(JSONObject([
            ("dry_run", .bool(true)),
            ("accounts", .array(plans.map { account, plan in
                let change = changes[account] ?? MassChange(items: plan.steps.map(\.item), books: 0)
                return .object(JSONObject([
                    ("account", .string(account)),
                    ("writes", .array(plan.steps.map(json))),
                    ("mass_change", .object(JSONObject([
                        ("destructive_books", .integer(Int64(change.destructive))), ("books", .integer(Int64(change.books))),
                        ("allowed", massChangeGuard.map { .integer(Int64($0.allowed(ofTotal: change.books))) } ?? .null),
                        ("refused", .bool(massChangeGuard?.refuses(change.destructive, ofTotal: change.books) ?? false)),
                    ]))),
                ]))
            })),
        ]))
    }

    static func json(_ step: PushPlan.Step) -> JSONValue {
        let item = step.item
        let action: String
        var precondition: JSONValue = .null
        switch step {
        case .send(_, let p):
            action = "send"
            switch p {
            case .create: precondition = .object(JSONObject([("if_none_match", "*")]))
            case .ifMatch(let etag): precondition = .object(JSONObject([("if_match", .string(etag))]))
            case .afterPrevious: precondition = .object(JSONObject([("if_match", "previous")]))
            case .none: precondition = .null
            }
        case .needsResolving: action = "resolve"
        case .waitsBehind: action = "wait"
        }
        return .object(JSONObject([
            ("path", .string(item.path)), ("kind", .string(item.kind.rawValue)), ("method", .string(item.method.rawValue)),
            ("fields", .array(item.intent.fieldNames.map { .string($0) })), ("action", .string(action)),
            ("precondition", precondition), ("sent_without_answer", .bool(item.mayBeOnServer)),
        ]))
    }
}
