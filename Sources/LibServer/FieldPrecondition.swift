import LibHTTP
import LibJSON
import LibStore

/// Protocol v2's rule for an update: it applies to the version it was made
/// against, or to a newer one when nobody changed a field it changes (each
/// such field still has the value the client saw, or already the value it
/// sets). Then the other fields are the newer version's, and the result is
/// what `lib resolve --merge` would make. A field someone else changed to
/// another value is a clash: 412, never an overwrite.
enum FieldPrecondition {
    enum Decision: Equatable {
        /// Apply on top of the current version; `merged` when that is newer than the one the client saw.
        case apply(merged: Bool)
        /// 412: these fields changed under the write.
        case clash(fields: [String])
    }

    static func decide(_ update: FieldUpdate, current: BookRecord) -> Decision {
        if update.madeAgainst.opaque == current.etag { return .apply(merged: false) }
        let document = current.document ?? JSONObject()
        let clashing = update.changedFields.filter { name in document[name] != update.seen[name] && document[name] != update.set[name] }
        if update.strict { return .clash(fields: clashing) }
        return clashing.isEmpty ? .apply(merged: true) : .clash(fields: clashing)
    }

    /// The update applied to the current document.
    static func applied(_ update: FieldUpdate, to document: JSONObject) -> JSONObject {
        var result = document
        for name in update.remove { result[name] = nil }
        for (name, value) in update.set { result[name] = value }
        return result
    }
}

/// Whose changes a merged write was applied on top of: the fields that
/// changed between the version the client saw and the current one, and
/// who changed them, read from the book's history.
struct MergeNote: Equatable {
    let fields: [String]
    let by: [String]

    var json: JSONValue {
        ["fields": .array(fields.map { .string($0) }), "by": .array(by.map { .string($0) })]
    }

    static func since(_ etag: EntityTag, book id: String, in db: any SQLConnection) throws -> MergeNote {
        let rows = try db.query("""
            SELECT history.document, COALESCE(users.username, history.updated_by) AS writer FROM history
            LEFT JOIN users ON users.id = history.updated_by
            WHERE history.book_id = ?1
              AND history.version >= (SELECT version FROM history WHERE book_id = ?1 AND etag = ?2)
            ORDER BY history.version
            """, [.text(id), .text(etag.opaque)])
        var fields: [String] = []
        var writers: [String] = []
        var previous = try rows.first.flatMap { try $0["document"].text.map { try JSONParser.parse($0).objectValue } } ?? nil
        for row in rows.dropFirst() {
            let document = try row["document"].text.flatMap { try JSONParser.parse($0).objectValue }
            let changed = Set((previous?.keys ?? []) + (document?.keys ?? [])).filter { previous?[$0] != document?[$0] }
            for name in changed.sorted() where !fields.contains(name) { fields.append(name) }
            if let writer = row["writer"].text, !changed.isEmpty, !writers.contains(writer) { writers.append(writer) }
            previous = document
        }
        return MergeNote(fields: fields, by: writers)
    }
}
