import LibJSON
import LibStore

/// Stores made before writes were intents kept each change as the whole
/// new document. Migration 003 gives every row its intent: a change
/// becomes the fields that differ from the version it was based on, so
/// nothing the user did is lost and nothing they did not do is sent. Rows
/// keep their keys, attempts and state: nothing is resent that was not
/// going to be.
enum WholeDocumentWrites {
    static func migrate(_ db: Database) throws {
        try db.execute("""
            ALTER TABLE outbox ADD COLUMN changes TEXT;            -- a change: the fields set and removed (FieldChanges)
            ALTER TABLE outbox ADD COLUMN claimed INTEGER NOT NULL DEFAULT 0;  -- a push is sending it (or died doing so)
            """)
        for row in try db.query("SELECT seq, body, base_body FROM outbox WHERE method = 'PUT' AND create_only = 0") {
            guard let seq = row["seq"].integer, let text = row["body"].text,
                  let document = (try? JSONParser.parse(text))?.objectValue else { continue }
            let base = row["base_body"].text.flatMap { try? JSONParser.parse($0) }?.objectValue ?? JSONObject()
            let changes = FieldChanges(from: base, to: document)
            try db.run("UPDATE outbox SET changes = ?2, body = NULL WHERE seq = ?1",
                       [.integer(seq), .text(changes.json.serialized())])
        }
    }
}
