import CSodium
import LibStore

/// Device sign-in (RFC 8628): a device without a keyboard asks for a code
/// pair, shows the user code, and polls with the device code until a
/// signed-in user approves the user code (at GET /device, or with `lib
/// device approve`), which turns the next poll into a session. Rows live in
/// `device_grants`, shared by every server on the database; only the device
/// code's SHA-256 is kept, as for tokens.
enum DeviceGrants {
    /// RFC 8628 §6.1's base-20 alphabet: no vowels (no words), no look-alikes.
    static let userCodeAlphabet = Array("BCDFGHJKLMNPQRSTVWXZ")
    /// 20^8 ≈ 2.6·10^10 codes (34.5 bits), shown as XXXX-XXXX.
    static let userCodeLength = 8
    /// A code pair works this long (`expires_in`).
    static let lifetime: Double = 15 * 60
    /// The least time between polls a device starts with (`interval`);
    /// each `slow_down` adds `slowDownStep` for that device code (§3.5).
    static let interval: Double = 5
    static let slowDownStep: Double = 5
    /// An expired row is kept this long, so that its device hears
    /// `expired_token` rather than `invalid_grant`.
    static let keptAfterExpiry: Double = 3600

    /// A new code pair.
    struct Started {
        let deviceCode: String
        let userCode: String
    }

    /// Starts a grant; the device code is shown only here.
    static func start(at now: Double, in db: any SQLConnection) throws -> Started {
        try db.run("DELETE FROM device_grants WHERE expires_at < ?1", [.real(now - keptAfterExpiry)])
        // A user code already held by a row is drawn again (one in 10^7 with
        // a thousand live codes): the codes stay unique without a retry loop
        // the database could make long.
        for _ in 0..<8 {
            let started = Started(deviceCode: "lbd_" + Crypto.randomHex(bytes: 32), userCode: newUserCode())
            let inserted = try db.run("""
                INSERT INTO device_grants (device_code_hash, user_code, state, created_at, expires_at, poll_interval)
                VALUES (?1, ?2, 'pending', ?3, ?4, ?5) ON CONFLICT DO NOTHING
                """, [.text(hash(started.deviceCode)), .text(started.userCode), .real(now), .real(now + lifetime), .real(interval)])
            if inserted == 1 { return started }
        }
        throw DeviceGrantError.noFreeUserCode
    }

    /// What a device's poll gets (`POST /v1/device/token`).
    enum PollAnswer: Equatable {
        case pending
        /// Polled sooner than its interval allows; the new interval.
        case slowDown(interval: Double)
        case denied
        case expired
        /// Never issued, or already turned into a session.
        case unknown
        /// Approved: the user a session is made for, once.
        case approved(User)
    }

    /// One poll, in the caller's write transaction: records the poll, and an
    /// approved grant becomes used, so that only one poll gets its session.
    static func poll(deviceCode: String, at now: Double, in db: any SQLConnection) throws -> PollAnswer {
        let rows = try db.query("""
            SELECT g.state, g.expires_at, g.poll_interval, g.polled_at, u.id, u.username, u.role
            FROM device_grants g LEFT JOIN users u ON u.id = g.user_id WHERE g.device_code_hash = ?1\(db.forUpdate.isEmpty ? "" : db.forUpdate + " OF g")
            """, [.text(hash(deviceCode))])
        guard let row = rows.first, let state = row["state"].text else { return .unknown }
        let key = SQLValue.text(hash(deviceCode))
        if state == "used" { return .unknown }
        if now >= row["expires_at"].real ?? 0 { return .expired }
        if state == "denied" { return .denied }
        let interval = row["poll_interval"].real ?? Self.interval
        if let last = row["polled_at"].real, now - last < interval {
            try db.run("UPDATE device_grants SET poll_interval = ?2, polled_at = ?3 WHERE device_code_hash = ?1",
                       [key, .real(interval + slowDownStep), .real(now)])
            return .slowDown(interval: interval + slowDownStep)
        }
        if state == "approved", let id = row["id"].text, let name = row["username"].text,
           let role = row["role"].text.flatMap(Role.init(rawValue:)) {
            try db.run("UPDATE device_grants SET state = 'used', polled_at = ?2 WHERE device_code_hash = ?1", [key, .real(now)])
            return .approved(User(id: id, username: name, role: role))
        }
        try db.run("UPDATE device_grants SET polled_at = ?2 WHERE device_code_hash = ?1", [key, .real(now)])
        return .pending
    }

    /// Where a user code stands.
    enum UserCodeStanding: Equatable {
        case pending
        /// No such user code (mistyped or guessed).
        case unknown
        case expired
        /// Approved, denied or used already: a code is decided once.
        case decided
    }

    static func standing(ofUserCode userCode: String, at now: Double, in db: any SQLConnection) throws -> UserCodeStanding {
        let rows = try db.query("SELECT state, expires_at FROM device_grants WHERE user_code = ?1\(db.forUpdate)", [.text(userCode)])
        guard let row = rows.first else { return .unknown }
        if now >= row["expires_at"].real ?? 0 { return .expired }
        return row["state"].text == "pending" ? .pending : .decided
    }

    /// Approves (`user` given) or denies (nil) the grant with this user
    /// code when it is pending, in the caller's write transaction; returns
    /// where it stood (`.pending`: it is decided now).
    static func decide(userCode: String, approvingFor user: User?, at now: Double, in db: any SQLConnection) throws -> UserCodeStanding {
        let standing = try standing(ofUserCode: userCode, at: now, in: db)
        guard standing == .pending else { return standing }
        if let user {
            try db.run("UPDATE device_grants SET state = 'approved', user_id = ?2 WHERE user_code = ?1", [.text(userCode), .text(user.id)])
        } else {
            try db.run("UPDATE device_grants SET state = 'denied' WHERE user_code = ?1", [.text(userCode)])
        }
        return .pending
    }

    /// A user code as typed (any case, with or without the dash or spaces)
    /// in its stored form, XXXX-XXXX; nil when it cannot be one.
    static func normalizedUserCode(_ typed: String) -> String? {
        let letters = typed.uppercased().filter { $0 != "-" && $0 != " " }
        guard letters.count == userCodeLength, letters.allSatisfy(userCodeAlphabet.contains) else { return nil }
        return String(letters.prefix(4)) + "-" + String(letters.suffix(4))
    }

    private static func newUserCode() -> String {
        _ = Crypto.ready
        let letters = (0..<userCodeLength).map { _ in userCodeAlphabet[Int(randombytes_uniform(UInt32(userCodeAlphabet.count)))] }
        return String(letters.prefix(4)) + "-" + String(letters.suffix(4))
    }

    private static func hash(_ deviceCode: String) -> String { Crypto.sha256Hex(Array(deviceCode.utf8)) }
}

enum DeviceGrantError: Error, CustomStringConvertible {
    case noFreeUserCode

    var description: String { "no free user code after 8 draws" }
}
