import Foundation
import LibBase
import LibStore

/// Users, their password hashes and their sessions. Tokens are random and
/// only their SHA-256 is stored, so the database never holds a usable token.
enum UserDirectory {
    enum AddUserError: Error, CustomStringConvertible {
        case invalidName(String)
        case exists(String)
        case passwordHashFailed

        var description: String {
            switch self {
            case .invalidName(let name): return "invalid user name '\(name)': use \(UserName.rule)"
            case .exists(let name): return "user '\(name)' already exists"
            case .passwordHashFailed: return "could not hash the password"
            }
        }
    }

    /// Adds a user with a freshly hashed password. The id is random so that a
    /// user re-created under the same name is a different identity.
    @discardableResult
    static func addUser(_ name: String, password: String, role: Role, at now: Double, in store: ServerStore) throws -> User {
        guard let user = try addUserIfMissing(name, password: password, role: role, at: now, in: store) else {
            throw AddUserError.exists(name)
        }
        return user
    }

    /// Adds the user unless one of that name exists (also when another
    /// server adds it at the same moment); nil when it existed.
    static func addUserIfMissing(_ name: String, password: String, role: Role, at now: Double, in store: ServerStore) throws -> User? {
        guard UserName.isValid(name) else { throw AddUserError.invalidName(name) }
        guard let hash = Crypto.hashPassword(password) else { throw AddUserError.passwordHashFailed }
        let user = User(id: "u-" + Crypto.randomHex(bytes: 6), username: name, role: role)
        let added = try store.write { db in
            try db.run("""
                INSERT INTO users (id, username, role, password_hash, created_at) VALUES (?1, ?2, ?3, ?4, ?5)
                ON CONFLICT (username) DO NOTHING
                """, [.text(user.id), .text(name), .text(role.rawValue), .text(hash), .real(now)])
        }
        return added == 1 ? user : nil
    }

    static func userExists(_ name: String, in db: any SQLConnection) throws -> Bool {
        try db.scalar("SELECT 1 FROM users WHERE username = ?1", [.text(name)]) != nil
    }

    /// The user and their password hash, for a login attempt.
    static func credentials(for name: String, in db: any SQLConnection) throws -> (User, String)? {
        guard let row = try db.query("SELECT id, username, role, password_hash FROM users WHERE username = ?1", [.text(name)]).first,
              let user = user(from: row), let hash = row["password_hash"].text
        else { return nil }
        return (user, hash)
    }

    /// Makes a session for the user; returns the token, shown only this once.
    static func startSession(for user: User, at now: Double, in db: any SQLConnection) throws -> String {
        let token = "lbt_" + Crypto.randomHex(bytes: 32)
        try db.run("INSERT INTO sessions (token_hash, user_id, created_at) VALUES (?1, ?2, ?3)",
                   [.text(Crypto.sha256Hex(Array(token.utf8))), .text(user.id), .real(now)])
        return token
    }

    /// What a bearer token stands for.
    enum TokenStanding {
        /// `renewalDue`: its last recorded use is older than the renewal
        /// step, so this use should be recorded (`recordUse`); it will be
        /// from `renewalDueAt` on (and nothing else about the standing
        /// changes before then unless the database does).
        case signedIn(User, renewalDue: Bool, renewalDueAt: Double)
        /// Unused for longer than the session lifetime.
        case expired
        /// Never issued, or revoked.
        case unknown
    }

    /// The user a live token belongs to: one used (or started) within
    /// `lifetime` seconds and not revoked. A session's end slides with its
    /// use, so a device that keeps using it (cron pushing every hour) never
    /// meets a cliff, while one left unused still expires.
    static func standing(ofToken token: String, lifetime: TimeInterval, at now: Double, in db: any SQLConnection) throws -> TokenStanding {
        try standing(from: try askStanding(ofToken: token, in: db), lifetime: lifetime, at: now)
    }

    /// Asks for a token's session: where the connection pipelines
    /// (PostgreSQL reading together), the question goes with the next
    /// statement's round trip; `standing(from:)` reads the answer.
    static func askStanding(ofToken token: String, in db: any SQLConnection) throws -> SQLAnswer {
        try db.send("""
            SELECT u.id, u.username, u.role, s.created_at, s.used_at FROM sessions s JOIN users u ON u.id = s.user_id
            WHERE s.token_hash = ?1 AND s.revoked_at IS NULL
            """, [.text(Crypto.sha256Hex(Array(token.utf8)))])
    }

    static func standing(from answer: SQLAnswer, lifetime: TimeInterval, at now: Double) throws -> TokenStanding {
        guard let row = try answer.rows().first, let user = user(from: row) else { return .unknown }
        let lastUse = max(seconds(row["created_at"]) ?? 0, seconds(row["used_at"]) ?? 0)
        guard now - lastUse <= lifetime else { return .expired }
        let renewalDueAt = lastUse + renewalStep(lifetime: lifetime)
        return .signedIn(user, renewalDue: now >= renewalDueAt, renewalDueAt: renewalDueAt)
    }

    /// How stale a session's recorded use may grow before a use is written
    /// down: an hour (a minute's worth of requests costs no write), less for
    /// the short lifetimes tests use.
    static func renewalStep(lifetime: TimeInterval) -> TimeInterval {
        min(3600, lifetime / 20)
    }

    /// Moves the session's end to `lifetime` after `now` (never back).
    static func recordUse(ofToken token: String, at now: Double, in db: any SQLConnection) throws {
        try db.run("UPDATE sessions SET used_at = ?2 WHERE token_hash = ?1 AND revoked_at IS NULL AND (used_at IS NULL OR used_at < ?2)",
                   [.text(Crypto.sha256Hex(Array(token.utf8))), .real(now)])
    }

    private static func seconds(_ value: SQLValue) -> Double? {
        value.real ?? value.integer.map(Double.init)
    }

    static func revokeSession(token: String, at now: Double, in db: any SQLConnection) throws {
        try db.run("UPDATE sessions SET revoked_at = ?2 WHERE token_hash = ?1 AND revoked_at IS NULL",
                   [.text(Crypto.sha256Hex(Array(token.utf8))), .real(now)])
    }

    private static func user(from row: Row) -> User? {
        guard let id = row["id"].text, let name = row["username"].text,
              let role = row["role"].text.flatMap(Role.init(rawValue:)) else { return nil }
        return User(id: id, username: name, role: role)
    }
}
