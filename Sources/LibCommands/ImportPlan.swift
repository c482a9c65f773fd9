import LibJSON
import LibSync

/// What importing lines asks of the outbox: for each book whose line differs
/// from this device's version of it (the cached copy with the pending
/// writes applied, `LocalVersion`), the write `lib edit` would queue:
/// a create when the book is not here, a change of only the fields that
/// differ, a delete for a deleted line. A line equal to the book asks
/// nothing, so importing the same file twice queues nothing the second time.
struct ImportPlan {
    private(set) var writes: [Outbox.NewWrite] = []
    private(set) var creates = 0
    private(set) var updates = 0
    private(set) var deletes = 0
    /// Lines that ask nothing: the book is already as the line says.
    private(set) var unchanged = 0

    init(_ lines: [ExportLine], cache: Cache, outbox: Outbox) throws {
        for line in lines {
            let cached = try cache.document(at: line.path)
            let local = LocalVersion(path: line.path, cached: cached?.json, writes: try outbox.items(for: line.path))
            switch (line.document, local.document) {
            case (nil, nil):
                unchanged += 1
            case (nil, let present?):
                // A delete of what this device shows (as `lib edit --delete`).
                deletes += 1
                writes.append(Outbox.NewWrite(path: line.path, intent: .delete, baseBody: JSONValue.object(present).serialized(),
                                              baseETag: line.etag ?? cached?.etag))
            case (let wanted?, nil):
                creates += 1
                writes.append(Outbox.NewWrite(path: line.path, intent: .create(wanted), baseBody: nil, baseETag: nil))
            case (let wanted?, let present?):
                let changes = FieldChanges(from: present, to: wanted)
                guard !changes.isEmpty else { unchanged += 1; continue }
                updates += 1
                writes.append(Self.update(line, changes, present: present, cached: cached))
            }
        }
    }

    var count: Int { writes.count }

    /// A change against the version the line names. When that is the
    /// cached one (or the line names none) the base is this device's
    /// version, as for `lib edit`. When the line names another version,
    /// this device knows of it only what the line says, and the line may
    /// hold edits: the base is the line's book without the fields the
    /// change sets, left unknown. On the server each of them is then a
    /// clash unless it already has the new value, and `lib resolve` shows
    /// both sides of it: a line older than the server never overwrites a
    /// value it did not see.
    private static func update(_ line: ExportLine, _ changes: FieldChanges, present: JSONObject,
                               cached: CachedDocument?) -> Outbox.NewWrite {
        var base = (body: present, etag: cached?.etag)
        if let etag = line.etag, etag != cached?.etag, var seen = line.document {
            for name in changes.names { seen[name] = nil }
            base = (seen, etag)
        }
        return Outbox.NewWrite(path: line.path, intent: .change(changes), baseBody: JSONValue.object(base.body).serialized(),
                               baseETag: base.etag)
    }
}
