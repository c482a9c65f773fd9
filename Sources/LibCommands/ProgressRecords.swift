import LibCLI
import LibJSON

/// `--json`'s progress on long pulls and pushes: one JSON object a line on
/// standard error (NDJSON, docs/JSON.md), where the JSON error goes too;
/// standard output keeps its one document. A pull says each listing page
/// but the last, a push each batch answered but the last: a pull or push
/// of one request says nothing.
struct ProgressRecords {
    let channel: OutputChannel
    let command: String
    let account: String

    /// Nil without `--json`, or with `-q`.
    init?(_ context: CommandContext, command: String, account: String) {
        guard context.globalOptions.json, !context.globalOptions.quiet else { return nil }
        channel = context.standardError
        self.command = command
        self.account = account
    }

    /// `{"event":"progress","command":…,"account":…, fields…}`
    func write(_ fields: [(String, JSONValue)]) {
        let record = JSONObject([("event", .string("progress")), ("command", .string(command)), ("account", .string(account))] + fields)
        channel.write(JSONValue.object(record).serialized() + "\n")
    }
}
