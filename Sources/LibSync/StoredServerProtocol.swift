import LibBase

/// What the account's server said it speaks (`GET /v2/capabilities`), kept
/// in the account's store so that a push asks once a day, not once a push.
/// `text` is LibClient's `ServerCapabilities.stored` form.
public struct StoredServerProtocol: Sendable, Equatable {
    public let text: String
    /// When the server said so (unix seconds).
    public let checkedAt: UnixSeconds
}

extension Cache {
    public func serverProtocol() throws -> StoredServerProtocol? {
        var values: [String: String] = [:]
        for row in try db.query("SELECT key, value FROM meta WHERE key IN ('server_protocol', 'server_protocol_checked_at')") {
            if let key = row["key"].text, let value = row["value"].text { values[key] = value }
        }
        guard let text = values["server_protocol"] else { return nil }
        return StoredServerProtocol(text: text, checkedAt: values["server_protocol_checked_at"].flatMap(Double.init) ?? 0)
    }

    public func saveServerProtocol(_ text: String, at date: UnixSeconds) throws {
        try db.write { db in
            try db.run("INSERT OR REPLACE INTO meta (key, value) VALUES ('server_protocol', ?1)", [.text(text)])
            try db.run("INSERT OR REPLACE INTO meta (key, value) VALUES ('server_protocol_checked_at', ?1)", [.text(String(date))])
        }
    }

    /// The server no longer answers as it said (a v2 route gone): ask again at the next push.
    public func forgetServerProtocol() throws {
        try db.run("DELETE FROM meta WHERE key IN ('server_protocol', 'server_protocol_checked_at')")
    }
}
