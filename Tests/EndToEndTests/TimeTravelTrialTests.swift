import Foundation
import Testing
import TestSupport

/// 180 days of use in minutes (issue 47): lib-server's clock moved on by
/// `PUT /_test/clock` and lib's by `LIB_TEST_CLOCK_OFFSET` (debug builds
/// only), an hour at a time. Alice's laptop edits every morning and pushes
/// from cron every hour (`lib -q push --wait 60`); Bob's tablet pulls,
/// edits and pushes every evening but is away for 40 days, editing offline,
/// while a book is made and deleted (its tombstone pruned after 30 days, so
/// the tablet's place in the feed is gone); Carol's phone signs in once and
/// is never used again. (One user each: the devices share the test
/// session's keyring, where one user's sign-ins would share a token.) On day 60 the server is upgraded (the database as the
/// release before sliding sessions left it, which the new server migrates)
/// and on day 120 it is killed and started again. Nothing is lost or
/// applied twice, no active device ever meets exit 4 (sessions slide while
/// used), the idle one's session has expired, and the stores stay the size
/// of the library.
@Suite(.serialized) struct TimeTravelTrialTests {
    static let days = 180
    static let awayFrom = 100, backOn = 140

    final class Trial {
        var server: ServerProcess
        /// Seconds lib's clock and the server's are ahead of the wall clock.
        var offset = 0
        /// How far the server's clock has been moved (it starts at 0 when the server starts).
        var serverOffset = 0
        var log: [String] = []

        init(server: ServerProcess) { self.server = server }

        /// Moves the server's clock to lib's before a command that may reach it.
        func syncServerClock() throws {
            guard serverOffset != offset else { return }
            let moved = try HTTPTestClient(port: server.port).request("PUT", "/_test/clock", body: String(offset - serverOffset))
            #expect(moved.status == 200, "PUT /_test/clock: \(moved.status)")
            serverOffset = offset
        }

        /// `lib ARGS` on `device` at the trial's time; the server's clock follows first.
        @discardableResult
        func run(_ device: LibHarness, _ name: String, _ arguments: String..., online: Bool = true) throws -> CommandResult {
            if online { try syncServerClock() }
            let result = try device.lib(arguments, environment: ["LIB_TEST_CLOCK_OFFSET": String(offset)])
            log.append("day \(offset / 86_400) h\(offset % 86_400 / 3600) \(name): lib \(arguments.joined(separator: " ")) → \(result.status)")
            return result
        }

        /// The server again on the same port and database, its clock where it was.
        func restart(_ kill9: Bool) throws {
            if kill9 { kill(server.process.processIdentifier, SIGKILL); server.process.waitUntilExit() } else { server.stop() }
            server = try server.restarted(extraArguments: ["--fault-control"])
            serverOffset = 0
            try syncServerClock()
        }
    }

    @Test func halfAYearOfDailyUseLosesNothingAndNeverAsksAnActiveUserToSignInAgain() throws {
        let trial = Trial(server: try startDemoServer(arguments: ["--fault-control"]))
        let laptop = try LibHarness(), tablet = try LibHarness(), idle = try LibHarness()
        for (device, user) in [(laptop, "alice"), (tablet, "bob"), (idle, "carol")] {
            try device.login(user, to: trial.server)
            #expect(try trial.run(device, "setup", "pull").status == 0)
        }
        let laptopAccount = laptop.account("alice", on: trial.server), tabletAccount = tablet.account("bob", on: trial.server)
        // What each device last wrote to each book's field: the server must end with exactly these.
        var expected: [String: String] = [:]
        var writes = 0, laptopWrites = 0, largestStore = 0, authenticationExits: [String] = []

        for hour in 0..<(Self.days * 24) {
            trial.offset = hour * 3600
            let day = hour / 24
            if hour == 60 * 24 {
                trial.server.stop()
                try Self.asTheReleaseBeforeSlidingSessionsLeftIt(trial.server.databasePath)
                try trial.restart(false)
                let migrated = try CommandRunner.run("/usr/bin/sqlite3", [trial.server.databasePath,
                    "SELECT count(*) FROM schema_migrations WHERE name = '006-session-use'"])
                #expect(migrated.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "1", "the upgrade migrated: \(migrated)")
            }
            if hour == 120 * 24 { try trial.restart(true) }

            switch hour % 24 {
            case 9:
                let book = "b-\(1 + day % 4)"
                #expect(try trial.run(laptop, "laptop", "edit", "books/\(book)", "title=Laptop day \(day)", online: false).status == 0)
                expected[book + " title"] = "Laptop day \(day)"
                writes += 1
                laptopWrites += 1
                if day == 101 {
                    #expect(try trial.run(laptop, "laptop", "edit", "books/x-1", "--create", "title=Passing through",
                                          "author=Nobody", online: false).status == 0)
                }
                if day == 102 { #expect(try trial.run(laptop, "laptop", "edit", "books/x-1", "--delete", online: false).status == 0) }
                if day == 110 {
                    // While the tablet is away, another field of one of its books.
                    #expect(try trial.run(laptop, "laptop", "edit", "books/b-5", "copies:=9", online: false).status == 0)
                    expected["b-5 copies"] = "9"
                    writes += 1
                    laptopWrites += 1
                }
            case 12 where day % 7 == 0:
                let pull = try trial.run(laptop, "laptop", "pull")
                #expect(pull.status == 0, "\(pull)")
            case 20:
                let away = (Self.awayFrom..<Self.backOn).contains(day)
                if !away {
                    let pull = try trial.run(tablet, "tablet", "pull")
                    #expect(pull.status == 0, "\(pull)")
                    if day == Self.backOn { #expect(pull.stdout.contains("listed"), "past the feed's retention it lists again: \(pull)") }
                }
                let book = "b-\(5 + day % 4)"
                #expect(try trial.run(tablet, "tablet", "edit", "books/\(book)", "title=Tablet day \(day)", online: false).status == 0)
                expected[book + " title"] = "Tablet day \(day)"
                writes += 1
                if !away {
                    let push = try trial.run(tablet, "tablet", "push")
                    #expect(push.status == 0, "\(push)")
                    if push.status == 4 { authenticationExits.append("day \(day) tablet push") }
                }
            default:
                break
            }
            // cron, every hour
            let cron = try trial.run(laptop, "laptop cron", "-q", "push", "--wait", "60")
            #expect(cron.status == 0, "day \(day) hour \(hour % 24): \(cron)")
            if cron.status == 4 { authenticationExits.append("day \(day) hour \(hour % 24) cron") }
            if hour % 24 == 23 {
                largestStore = max(largestStore, try HostilePullTests.storeBytes(laptop.storePath(laptopAccount)),
                                   try HostilePullTests.storeBytes(tablet.storePath(tabletAccount)))
            }
        }
        #expect(authenticationExits.isEmpty, "\(authenticationExits)")

        // The idle device's session ended 90 days after its one use.
        trial.offset += 3600
        let idlePull = try trial.run(idle, "idle", "pull")
        #expect(idlePull.status == 4, "\(idlePull)")
        #expect(idlePull.stderr.contains("lib login"), "\(idlePull)")

        // Nothing lost, nothing twice.
        for (device, account) in [(laptop, laptopAccount), (tablet, tabletAccount)] {
            #expect(try device.sql(account, "SELECT count(*) FROM outbox").trimmingCharacters(in: .whitespacesAndNewlines) == "0")
            #expect(try device.sql(account, "SELECT count(*) FROM documents WHERE path = 'books/x-1'")
                .trimmingCharacters(in: .whitespacesAndNewlines) == "0", "the deleted book is gone from \(account)")
        }
        for (key, value) in expected {
            let parts = key.split(separator: " ").map(String.init)
            let history = try serverHistory(trial.server, book: parts[0])
            let document = try #require(history.last?.document)
            #expect(document.contains("\"\(parts[1])\":\(parts[1] == "copies" ? value : "\"\(value)\"")"), "\(key): \(document)")
        }
        let aliceID = try CommandRunner.run("/usr/bin/sqlite3", [trial.server.databasePath, "SELECT id FROM users WHERE username = 'alice'"])
            .stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let versions = try (1...9).flatMap { try serverHistory(trial.server, book: "b-\($0)").filter { $0.updatedBy != "demo" } }
        let byUsers = versions.count, byAlice = versions.filter { $0.updatedBy == aliceID }.count
        let serverBytes = try FileManager.default.attributesOfItem(atPath: trial.server.databasePath)[.size] as? Int ?? 0
        print("""
            time travel trial: \(Self.days) days, \(trial.log.count) lib commands, \(writes) edits, \(byUsers) versions by users \
            on the server; largest store \(largestStore / 1024) KB; server database \(serverBytes / 1024) KB
            """)
        // The laptop's edits, pushed each hour, went one version each; the
        // tablet's offline edits of one book may go as one (the latest intent).
        #expect(byAlice == laptopWrites, "\(byAlice) versions by alice for \(laptopWrites) edits")
        #expect(byUsers <= writes && byUsers >= writes - (Self.backOn - Self.awayFrom), "\(byUsers) versions for \(writes) edits")
        // The file and its WAL, which SQLite checkpoints at about 4 MB.
        #expect(largestStore < 8 * 1024 * 1024, "largest store \(largestStore) bytes")
    }

    /// The database as the lib-server before sliding sessions left it:
    /// without `sessions.used_at` and its migration (the new server adds both).
    static func asTheReleaseBeforeSlidingSessionsLeftIt(_ database: String) throws {
        let downgrade = try CommandRunner.run("/usr/bin/sqlite3", [database, """
            ALTER TABLE sessions DROP COLUMN used_at; DELETE FROM schema_migrations WHERE name = '006-session-use';
            """])
        #expect(downgrade.status == 0, "\(downgrade)")
    }
}
