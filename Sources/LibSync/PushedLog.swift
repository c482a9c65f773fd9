import LibBase
import LibJSON
import LibStore

/// What this device pushed for the account: one entry per write the server
/// applied, recorded in the transaction that records the success (so the
/// log and the outbox never disagree), newest kept. `lib log` reads it
/// offline, without a request; `lib revert` takes its inverse.
///
/// Bounded: the newest `limit` entries (10,000) per account; each new entry
/// drops the ones it pushes past the bound (a trigger, a range delete on
/// the key), so the log never grows past it and a push pays no more than
/// one insert per write.
public struct PushedLog {
    let db: Database

    /// Entries kept per account.
    public static let limit = 10_000

    /// Migration `004-pushed-log`. A store made by the release before has no
    /// log: it starts empty.
    static let migration = """
        CREATE TABLE pushed_log (
            id INTEGER PRIMARY KEY AUTOINCREMENT,  -- the order the server applied them in
            pushed_at REAL NOT NULL,               -- when the success was recorded (unix seconds)
            path TEXT NOT NULL,
            method TEXT NOT NULL,                  -- the intent, as the outbox kept it (StoredIntent)
            create_only INTEGER NOT NULL,
            body TEXT,
            changes TEXT,
            base_body TEXT,                        -- the version it was sent against (a delete: the document deleted)
            base_etag TEXT,
            etag TEXT                              -- the ETag of the version it made (NULL after a delete)
        );
        CREATE INDEX pushed_log_by_path ON pushed_log (path, id);
        CREATE TRIGGER pushed_log_bound AFTER INSERT ON pushed_log BEGIN
            DELETE FROM pushed_log WHERE id <= NEW.id - \(limit);
        END;
        """

    /// Copies a write the server applied into the log, inside the caller's
    /// transaction, before the outbox row is removed: one statement, with
    /// nothing parsed (it runs once per write of a push).
    static func record(_ db: Database, seq: Int64, etag: String?, merged: MergedChanges?, now: UnixSeconds) throws {
        try db.run(cached: """
            INSERT INTO pushed_log (pushed_at, path, method, create_only, body, changes, base_body, base_etag, etag, merged, reverts)
            SELECT ?2, path, method, create_only, body, changes, base_body, base_etag,
                CASE WHEN method = 'DELETE' THEN NULL ELSE ?3 END, ?4, reverts
            FROM outbox WHERE seq = ?1
            """, [.integer(seq), .real(now), SQLValue(etag), SQLValue(merged.map { $0.json.serialized() })])
    }

    /// Migration `007-protocol-v2`'s part: whose changes a write was merged with.
    static let mergedColumn = "ALTER TABLE pushed_log ADD COLUMN merged TEXT;"

    /// Migration `009-reverts-logged`: the entry a write undoes (`lib revert`),
    /// in the outbox and then in the log. Writes from before have none.
    static let revertsColumns = """
        ALTER TABLE outbox ADD COLUMN reverts INTEGER;
        ALTER TABLE pushed_log ADD COLUMN reverts INTEGER;
        """

    static func merged(from text: String?) -> MergedChanges? {
        guard let note = text.flatMap({ try? JSONParser.parse($0) }), note.objectValue != nil else { return nil }
        return MergedChanges(json: note)
    }

    /// The newest entries first, of one path or of all; at most `limit`.
    public func entries(path: String? = nil, limit: Int? = nil) throws -> [PushedWrite] {
        let count = Int64(limit ?? Self.limit)
        if let path {
            return try Self.entries(db, "WHERE path = ?1 ORDER BY id DESC LIMIT ?2", [.text(path), .integer(count)])
        }
        return try Self.entries(db, "ORDER BY id DESC LIMIT ?1", [.integer(count)])
    }

    /// This account's last pushed write of `path`, if the log still has it.
    public func last(of path: String) throws -> PushedWrite? { try entries(path: path, limit: 1).first }

    /// How many entries the log holds.
    public func count() throws -> Int { Int(try db.scalar("SELECT count(*) FROM pushed_log")?.integer ?? 0) }

    private static func entries(_ db: Database, _ clause: String, _ values: [SQLValue]) throws -> [PushedWrite] {
        try db.withCachedStatement("""
            SELECT id, pushed_at, path, method, create_only, body, changes, base_body, base_etag, etag, merged, reverts
            FROM pushed_log \(clause)
            """) { statement in
            try statement.bind(values)
            return try statement.rows { s in
                let id = s.integer(at: 0)
                let path = s.text(at: 2) ?? ""
                guard let intent = StoredIntent(method: s.text(at: 3), createOnly: s.integer(at: 4) != 0,
                                                body: s.text(at: 5), changes: s.text(at: 6)).intent else {
                    throw UnreadableLogEntry(id: id, path: path)
                }
                return PushedWrite(id: id, pushedAt: s.value(at: 1).real ?? 0, path: path, intent: intent,
                                   baseBody: s.text(at: 7), baseETag: s.text(at: 8), etag: s.text(at: 9),
                                   merged: Self.merged(from: s.text(at: 10)),
                                   reverts: s.value(at: 11).integer)
            }
        }
    }
}

/// One write this device pushed and the server applied.
public struct PushedWrite: Sendable, Equatable {
    public let id: Int64
    public let pushedAt: UnixSeconds
    public let path: String
    public let intent: WriteIntent
    /// The version it was sent against: for a delete, the document it deleted.
    public let baseBody: String?
    public let baseETag: String?
    /// The ETag of the version it made (nil after a delete).
    public let etag: String?
    /// Under protocol v2: the others' changes the server applied it on top of.
    public let merged: MergedChanges?
    /// The entry it undid, when it was a `lib revert`.
    public let reverts: Int64?

    public init(id: Int64, pushedAt: UnixSeconds, path: String, intent: WriteIntent, baseBody: String?,
                baseETag: String?, etag: String?, merged: MergedChanges? = nil, reverts: Int64? = nil) {
        self.merged = merged
        self.reverts = reverts
        self.id = id
        self.pushedAt = pushedAt
        self.path = path
        self.intent = intent
        self.baseBody = baseBody
        self.baseETag = baseETag
        self.etag = etag
    }

    public var kind: OutboxItem.Kind {
        switch intent {
        case .create: return .create
        case .change: return .change
        case .delete: return .delete
        }
    }

    /// The version it was sent against, parsed.
    public var base: JSONObject? { baseBody.flatMap { try? JSONParser.parse($0) }?.objectValue }

    /// The document it made (nil after a delete): its intent applied to its base.
    public var made: JSONObject? { intent.applied(to: base) }
}

/// A log row that cannot be read back: the store is damaged.
public struct UnreadableLogEntry: Error, CustomStringConvertible {
    public let id: Int64
    public let path: String
    public var description: String { "The pushed-writes log is damaged: entry \(id) of \(path) cannot be read back" }
}
