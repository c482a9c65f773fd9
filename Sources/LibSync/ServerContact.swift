import LibBase
import LibStore

/// What this device last heard from the account's server, kept in the
/// store's `meta` table: how many books changed there that this device has
/// not pulled (the server's `Lib-Feed-Behind`: `↓N`) and when it said so,
/// and when the server last answered a pull or a push (the last contact,
/// kept apart from the last complete pull, `LibraryMirror.lastPulled`).
/// Also the device's name for the server (`Lib-Device`): random, made once,
/// so that the server does not count this device's own writes as behind.
public struct ServerContact {
    let db: Database

    public init(db: Database) {
        self.db = db
    }

    public struct Heard: Sendable, Equatable {
        /// Books changed on the server that this device has not pulled; nil
        /// when the server never said.
        public var behind: Int?
        public var behindAt: UnixSeconds?
        public var lastContact: UnixSeconds?

        public init(behind: Int? = nil, behindAt: UnixSeconds? = nil, lastContact: UnixSeconds? = nil) {
            self.behind = behind
            self.behindAt = behindAt
            self.lastContact = lastContact
        }
    }

    private static let behindKey = "feed_behind"
    private static let contactKey = "last_contact"
    private static let deviceKey = "device"

    public func heard() throws -> Heard {
        var heard = Heard()
        let rows = try db.query("SELECT key, value FROM meta WHERE key IN (?1, ?2)", [.text(Self.behindKey), .text(Self.contactKey)])
        for row in rows {
            let value = row[1].text ?? ""
            switch row[0].text {
            case Self.behindKey:
                // "COUNT AT"
                let words = value.split(separator: " ")
                if words.count == 2, let count = Int(words[0]), count >= 0, let at = Double(words[1]) {
                    heard.behind = count
                    heard.behindAt = at
                }
            case Self.contactKey:
                heard.lastContact = Double(value)
            default:
                break
            }
        }
        return heard
    }

    /// The server answered at `date`; `behind`: what it said this device is
    /// behind by, when it said.
    public func record(behind: Int?, at date: UnixSeconds) throws {
        try db.write { db in
            let set = "INSERT INTO meta (key, value) VALUES (?1, ?2) ON CONFLICT (key) DO UPDATE SET value = excluded.value"
            try db.run(set, [.text(Self.contactKey), .text(String(date))])
            if let behind { try db.run(set, [.text(Self.behindKey), .text("\(behind) \(date)")]) }
        }
    }

    /// The device's name for this account's server, made on first use.
    public func deviceName() throws -> String {
        if let name = try db.scalar(cached: "SELECT value FROM meta WHERE key = ?1", [.text(Self.deviceKey)])?.text { return name }
        var generator = SystemRandomNumberGenerator()
        let name = (0..<2).map { _ in String(generator.next() as UInt64, radix: 16) }.joined(separator: "-")
        try db.run("INSERT OR IGNORE INTO meta (key, value) VALUES (?1, ?2)", [.text(Self.deviceKey), .text(name)])
        return try db.scalar(cached: "SELECT value FROM meta WHERE key = ?1", [.text(Self.deviceKey)])?.text ?? name
    }
}
