import LibCLI
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
    static func json(_ view: DocumentView, cached: JSONValue? = nil) -> String {
        var value = jsonValue(view)
        if let cached, var object = value.objectValue {
            object[cachedMember] = cached
            value = .object(object)
        }
        return value.prettyPrinted() + "\n"
    }

    /// `{"items": [...]}`: the members in the server's order, each as `json(_:)`.
    static func json(collection views: [DocumentView], cached: JSONValue? = nil) -> String {
        var object = JSONObject([("items", .array(views.map(jsonValue)))])
        object[cachedMember] = cached
        return JSONValue.object(object).prettyPrinted() + "\n"
    }

    /// A copy shown from the cache rather than fresh from the server:
    /// `"_cached": {"age_seconds": N or null, "reason": TOKEN, "message": "…"}`.
    static let cachedMember = "_cached"

    static func jsonValue(_ view: DocumentView) -> JSONValue {
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
        let keys = object.keys.map { TerminalText.escaped($0) }
        let width = keys.map(\.count).max() ?? 0
        for (key, (_, value)) in zip(keys, object) {
            text += key + ":" + String(repeating: " ", count: width - key.count + 1) + display(value) + "\n"
        }
        return text
    }

    /// A table of id, title, author and year, with a note on unsent changes,
    /// in natural id order (b-2 before b-10), fitted to `width` when given.
    /// Rows in natural id order, or as given (`inGivenOrder`: search results, best first).
    static func table(_ views: [DocumentView], width: Int? = nil, painter: TextPainter = TextPainter(isEnabled: false),
                      inGivenOrder: Bool = false) -> String {
        if views.isEmpty { return "No books.\n" }
        var table = TextTable([
            .init("ID", canShrink: false), .init("TITLE", minimumWidth: 12), .init("AUTHOR", minimumWidth: 10, dropOrder: 2),
            .init("YEAR", canShrink: false, dropOrder: 1), .init("COPIES", canShrink: false, onlyWhenRoomy: true),
            .init("TAGS", onlyWhenRoomy: true), .init("", canShrink: false, dropOrder: 3),
        ])
        let rows = views.map { view -> (id: String, cells: [TextTable.Cell]) in
            let document = view.document ?? view.serverCopy
            let id = document?["id"].map(display) ?? view.path
            let note = view.pending.map { $0.deletes ? "deleted, not yet pushed" : "changed, not yet pushed" } ?? ""
            return (id, [.init(id, view.pending == nil ? nil : .yellow), .init(document?["title"].map(display) ?? ""),
                         .init(document?["author"].map(display) ?? ""), .init(document?["year"].map(display) ?? ""),
                         .init(document?["copies"].map(display) ?? ""), .init(document?["tags"].map(display) ?? ""),
                         .init(note, .yellow)])
        }
        for row in inGivenOrder ? rows : rows.sortedNaturally(by: \.id) { table.append(row.cells) }
        // Copies and tags only when everything fits whole (200 columns, not 80).
        // A title too long for the terminal goes on over the row's next lines,
        // whole. Too narrow for every column (40 columns and the 26-character
        // ids of `lib new`): the year goes, then the author, then the note
        // (a pending write's id is still yellow); the id and the title stay.
        table.wrapsCells = true
        return table.render(width: width, painter: painter)
    }

    /// A value as people read it: strings bare, lists of strings joined;
    /// what a terminal would act on escaped (TerminalText).
    static func display(_ value: JSONValue) -> String {
        switch value {
        case .string(let s): return TerminalText.escaped(s)
        case .null: return "-"
        case .array(let items) where items.allSatisfy({ $0.stringValue != nil }):
            return items.compactMap { $0.stringValue.map { TerminalText.escaped($0) } }.joined(separator: ", ")
        default: return value.serialized()
        }
    }
}
