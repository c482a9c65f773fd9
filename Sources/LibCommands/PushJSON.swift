import LibCLI
import LibJSON
import LibSync
import LibBase
import LibClient

/// `lib push --json` (docs/json/push.schema.json): per account, each write
/// sent with its outcome, the counts left, and what the text would say.
enum PushJSON {
    static func document(_ results: [(account: String, result: AccountPush.Result)], exitCode: ExitCode) -> JSONValue {
        .object(JSONObject([
            ("accounts", .array(results.map { account($0.account, $0.result) })),
            ("exit_code", .integer(Int64(exitCode.rawValue))),
        ]))
    }

    static func account(_ name: String, _ result: AccountPush.Result) -> JSONValue {
        let applied = result.writes.filter { if case .applied = $0.outcome { true } else { false } }.count
        var members: [(String, JSONValue)] = [
            ("account", .string(name)), ("exit_code", .integer(Int64(result.exitCode.rawValue))),
            ("pushed", .integer(Int64(applied))), ("writes", .array(result.writes.map(write))),
        ]
        if let counts = result.counts {
            members += [("pending", .integer(Int64(counts.pending))), ("conflicts", .integer(Int64(counts.conflicts))),
                        ("rejected", .integer(Int64(counts.rejected)))]
        } else {
            members += [("pending", .null), ("conflicts", .null), ("rejected", .null)]
        }
        let summary = [result.summary, result.attention].compactMap { $0 }.joined(separator: " ")
        members += [("summary", summary.isEmpty ? .null : .string(summary)),
                    ("problem", result.problem.map { JSONValue.string($0.text) } ?? .null),
                    ("refused", result.refusal.map(MassChangeWords.json) ?? .null)]
        return .object(JSONObject(members))
    }

    static func write(_ write: PushWriteResult) -> JSONValue {
        var members: [(String, JSONValue)] = [("path", .string(write.path)), ("method", .string(write.method.rawValue))]
        switch write.outcome {
        case .applied(let etag, let merged):
            members += [("outcome", "applied"), ("etag", etag.map(JSONValue.string) ?? .null),
                        ("merged", merged?.json ?? .null)]
        case .conflict(let etag):
            members += [("outcome", "conflict"), ("theirs_etag", etag.map(JSONValue.string) ?? .null)]
        case .rejected(let problem):
            members += [("outcome", "rejected"), ("problem", .string(problem))]
        case .failed(let reason):
            members += [("outcome", "failed"), ("error", .string(reason))]
        }
        return .object(JSONObject(members))
    }
}
