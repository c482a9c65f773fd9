import LibJSON

/// How `lib get` prints documents and collections: aligned fields and a
/// table for people on a terminal; otherwise the JSON, documented in
/// docs/READS.md (unsent writes applied, and marked by the `_pending` member).
enum DocumentRendering {
    /// The member that marks unsent writes in JSON output. It is lib's, never
    /// the server's (a book has no member starting with `_`).
    static let pendingMember = "_pending"

    // MARK: JSON

    /// The document (pretty-printed, one line per member) as it will be once
    /// pushed, with `_pending` when writes are unsent.
    static func json(_ view: DocumentView) -> String {
        jsonValue(view).prettyPrinted() + "\n"
    }

    /// `{"items": [...]}`: the members in the server's order, each as `json(_:)`.
    static func json(collection views: [DocumentView]) -> String {
        JSONValue.object(JSONObject([("items", .array(views.map(jsonValue)))])).prettyPrinted() + "\n"
    }

    private static func jsonValue(_ view: DocumentView) -> JSONValue {
        guard let pending = view.pending else { return view.document ?? .null }
        // A pending delete keeps only the id, so that the document still says which one it was.
        var object = view.document?.objectValue ?? JSONObject()
        if view.document == nil, let id = view.serverCopy?["id"] ?? view.path.split(separator: "/").last.map({ .string(String($0)) }) {
            object["id"] = id
        }
        object[pendingMember] = .object(JSONObject([
            ("changes", .integer(Int64(pending.count))),
            ("deleted", .bool(pending.deletes)),
            ("to_resolve", .integer(Int64(pending.needResolving))),
        ]))
        return .object(object)
    }

    // MARK: Text

    /// `field: value` lines, the values aligned; a pending delete is one line.
    static func text(_ view: DocumentView) -> String {
        if view.pending?.deletes == true { return "\(view.path): deleted, not yet pushed\n" }
        var text = view.pending == nil ? "" : "\(view.path): changed on this device, not yet pushed\n"
        guard let object = view.document?.objectValue else { return text + (view.document?.prettyPrinted() ?? "") + "\n" }
        let width = object.keys.map(\.count).max() ?? 0
        for (key, value) in object {
            text += key + ":" + String(repeating: " ", count: width - key.count + 1) + display(value) + "\n"
        }
        return text
    }

    /// A table of id, title, author and year, with a note on unsent changes.
    static func table(_ views: [DocumentView]) -> String {
        let header = ["ID", "TITLE", "AUTHOR", "YEAR", ""]
        let rows = views.map { view -> [String] in
            let document = view.document ?? view.serverCopy
            let note = view.pending.map { $0.deletes ? "deleted, not yet pushed" : "changed, not yet pushed" } ?? ""
            return [document?["id"].map(display) ?? view.path, clip(document?["title"].map(display) ?? ""),
                    clip(document?["author"].map(display) ?? ""), document?["year"].map(display) ?? "", note]
        }
        if rows.isEmpty { return "No books.\n" }
        let widths = (0..<header.count).map { column in ([header] + rows).map { $0[column].count }.max() ?? 0 }
        return ([header] + rows).map { row in
            zip(row, widths).map { cell, width in cell + String(repeating: " ", count: width - cell.count) }
                .joined(separator: "  ").trimmingTrailingSpaces() + "\n"
        }.joined()
    }

    /// A value as people read it: strings bare, lists of strings joined.
    static func display(_ value: JSONValue) -> String {
        switch value {
        case .string(let s): return s
        case .null: return "-"
        case .array(let items) where items.allSatisfy({ $0.stringValue != nil }):
            return items.compactMap(\.stringValue).joined(separator: ", ")
        default: return value.serialized()
        }
    }

    private static func clip(_ text: String, to width: Int = 40) -> String {
        text.count <= width ? text : String(text.prefix(width - 1)) + "…"
    }
}

extension String {
    func trimmingTrailingSpaces() -> String {
        var s = Substring(self)
        while s.last == " " { s = s.dropLast() }
        return String(s)
    }
}
