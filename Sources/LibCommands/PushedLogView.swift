import LibCLI
import LibClient
import LibJSON
import LibSync

/// How `lib log` shows what this device pushed (`PushedLog`) and a book's
/// server history (`BookVersion`): one line per write, newest first, with
/// the fields and their new values; JSON as docs/json/log.schema.json says.
/// Text from the server (values, user names) is escaped at this boundary.
enum PushedLogView {
    // MARK: This device's writes

    /// `2026-12-01 21:40  change  books/b-9  title="New" year=1990  -> "2-1a2b"`;
    /// a `lib revert` is `revert`, then what it did (`delete`, `create …`, the fields).
    static func line(_ entry: PushedWrite) -> String {
        var text = LocalTime.stamp(entry.pushedAt)
        text += "  "
        text += (entry.reverts == nil ? entry.kind.rawValue : "revert").padding(to: 6)
        text += "  "
        text += entry.path
        if entry.reverts != nil {
            switch entry.intent {
            case .delete: text += "  delete"
            case .create: text += "  create " + fieldsText(entry.intent)
            case .change: text += "  " + fieldsText(entry.intent)
            }
        } else if entry.kind != .delete {
            // A delete's kind says it all ("delete deleted" said it twice).
            text += "  "
            text += fieldsText(entry.intent)
        }
        if let etag = entry.etag {
            text += "  -> "
            text += etag
        }
        if let merged = entry.merged {
            text += "  ("
            text += merged.sentence
            text += ")"
        }
        return TerminalText.escaped(text)
    }

    /// `title="New" year=1990 -tags` (removed), `deleted` for a delete; a
    /// create's fields but its id (the path says it).
    static func fieldsText(_ intent: WriteIntent) -> String {
        switch intent {
        case .delete:
            return "deleted"
        case .create(let document):
            return document.filter { $0.key != "id" }.map { "\($0.key)=\(short($0.value))" }.joined(separator: " ")
        case .change(let changes):
            return changes.fields.map { field in
                field.value.map { "\(field.name)=\(short($0))" } ?? "-\(field.name)"
            }.joined(separator: " ")
        }
    }

    /// A value as JSON, cut to 60 characters.
    static func short(_ value: JSONValue) -> String {
        let text = value.serialized()
        return text.count <= 60 ? text : String(text.prefix(57)) + "..."
    }

    /// One entry: `pushed_at` (unix seconds, an integer), `path`, `kind`, `revert`
    /// (whether it was a `lib revert`), `changes`
    /// (`[{field, old, new}]`, a side where the field is absent left out),
    /// `etag` (the version it made; null after a delete).
    static func json(_ entry: PushedWrite) -> JSONValue {
        let base = entry.base
        let changes: [JSONValue]
        switch entry.intent {
        case .delete:
            changes = []
        case .create(let document):
            changes = document.map { change($0.key, old: nil, new: $0.value) }
        case .change(let fields):
            changes = fields.fields.map { change($0.name, old: base?[$0.name], new: $0.value) }
        }
        return .object(JSONObject([
            ("pushed_at", .integer(Int64(entry.pushedAt))), ("path", .string(entry.path)), ("kind", .string(entry.kind.rawValue)),
            ("revert", .bool(entry.reverts != nil)),
            ("changes", .array(changes)), ("etag", entry.etag.map { .string($0) } ?? .null),
            ("merged", entry.merged?.json ?? .null),
        ]))
    }

    static func change(_ field: String, old: JSONValue?, new: JSONValue?) -> JSONValue {
        var object = JSONObject([("field", .string(field))])
        if let old { object["old"] = old }
        if let new { object["new"] = new }
        return .object(object)
    }

    // MARK: The server's history

    /// One version against the one before it, what it changed field by field.
    struct ServerChange {
        let version: BookVersion
        let kind: OutboxItem.Kind
        let changes: [(field: String, old: JSONValue?, new: JSONValue?)]
    }

    /// The history's versions, newest first, each with what it changed.
    static func serverChanges(_ history: [BookVersion]) -> [ServerChange] {
        var previous: JSONObject?
        var result: [ServerChange] = []
        for version in history {
            let kind: OutboxItem.Kind = version.document == nil ? .delete : (previous == nil ? .create : .change)
            let before = previous ?? JSONObject()
            let after = version.document ?? JSONObject()
            let fields = version.document == nil ? [] : FieldMerge.changedFields(from: before, to: after)
            result.append(ServerChange(version: version, kind: kind,
                                       changes: fields.map { ($0, before[$0], after[$0]) }))
            previous = version.document
        }
        return result.reversed()
    }

    /// `v3  2026-12-01 21:41  bob  change  title: "Old" -> "Bob's"`: the time
    /// in the same local form as this device's writes.
    static func line(_ change: ServerChange) -> String {
        let at = LocalTime.seconds(fromUTC: change.version.at).map(LocalTime.stamp) ?? change.version.at
        var text = "v\(change.version.version)  \(at)  \(change.version.writer)  \(change.kind.rawValue)"
        if change.kind != .delete {
            let fields = change.changes.map { field -> String in
                switch (field.old, field.new) {
                case (nil, let new?): return "\(field.field)=\(short(new))"
                case (let old?, let new?): return "\(field.field): \(short(old)) -> \(short(new))"
                default: return "-\(field.field)"
                }
            }
            if !fields.isEmpty { text += "  " + fields.joined(separator: " ") }
        }
        return TerminalText.escaped(text)
    }

    /// One version: `version`, `etag`, `updated_by`, `updated_by_name`, `at`, `kind`, `changes`.
    static func json(_ change: ServerChange) -> JSONValue {
        .object(JSONObject([
            ("version", .integer(change.version.version)), ("etag", .string(change.version.etag)),
            ("updated_by", .string(change.version.updatedBy)),
            ("updated_by_name", change.version.updatedByName.map { .string($0) } ?? .null),
            ("at", .string(change.version.at)), ("kind", .string(change.kind.rawValue)),
            ("changes", .array(change.changes.map { self.change($0.field, old: $0.old, new: $0.new) })),
        ]))
    }
}
