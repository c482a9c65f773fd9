import LibJSON
import LibSync

/// What collects `Resolution.say`'s lines under `--json`.
final class SaidLines {
    var lines: [String] = []
}

/// `lib --json resolve PATH [--CHOICE]`: one document, never text
/// (docs/json/resolve.schema.json).
extension Resolution {
    /// The view: `{"account", "path", "status", "problem"?, "fields": [{"field",
    /// "base", "mine", "theirs", "clash"}], "clash"?, "later"}`; a side that does
    /// not have the field (or the document) leaves it out.
    func viewJSON() throws -> JSONValue {
        var object = JSONObject([
            ("account", .string(workspace.name)), ("path", .string(key)), ("status", .string(write.item.status.rawValue)),
        ])
        if !write.isConflict {
            object["problem"] = .string(write.item.problem ?? "")
        } else {
            let sides = try Sides(write.item)
            let fields = FieldMerge.fields(sides.base ?? JSONObject(), sides.mine ?? JSONObject(), sides.theirs ?? JSONObject())
            object["fields"] = .array(fields.map { field in
                var entry = JSONObject([("field", .string(field))])
                entry["base"] = sides.base?[field]
                entry["mine"] = sides.mine?[field]
                entry["theirs"] = sides.theirs?[field]
                entry["clash"] = .bool(FieldMerge.clashes(field, base: sides.base, mine: sides.mine, theirs: sides.theirs))
                return .object(entry)
            })
            object["mine_deletes"] = .bool(sides.mine == nil)
            object["theirs_deleted"] = .bool(sides.theirs == nil)
            if case .clash(let clash) = sides.merged { object["clash"] = .string(Sides.why(clash, key)) }
        }
        object["later"] = .integer(Int64(write.later.count))
        return .object(object)
    }

    /// After a choice: `{"account", "path", "choice", "messages", "pending", "conflicts", "rejected"}`.
    func settledJSON(choice: String) throws -> JSONValue {
        let counts = try store.outbox.counts()
        return .object(JSONObject([
            ("account", .string(workspace.name)), ("path", .string(key)), ("choice", .string(choice)),
            ("messages", .array(said.lines.map { .string($0) })),
            ("pending", .integer(Int64(counts.pending))), ("conflicts", .integer(Int64(counts.conflicts))),
            ("rejected", .integer(Int64(counts.rejected))),
        ]))
    }
}
