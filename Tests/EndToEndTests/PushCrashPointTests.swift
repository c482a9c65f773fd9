import Foundation
import Testing
import TestSupport

/// A push of 50 writes (in protocol-v2 batches: the 40 first writes of
/// their books in one, the 10 later writes in the next) killed at each of
/// its file writes and syncs in turn
/// (strace's `--inject=SYSCALL:signal=SIGKILL:when=N`, as SQLite's own crash
/// tests do inside the library), every time from the same starting point
/// (the server's database and lib's store restored from one snapshot), then
/// pushed again: nothing lost, nothing applied twice, the server's order is
/// the outbox's, the store passes `integrity_check`, and the cache ends with
/// the server's last version of each book.
///
/// `make test` kills at the first, middle and last call of each system call;
/// `make stress` (LIB_STRESS=1) at every one.
@Suite(.serialized) struct PushCrashPointTests {
    /// 40 books written once, then the first 10 again, queued behind the
    /// first write while it was attempted: 10 writes whose If-Match comes
    /// from the previous write's answer.
    static let books = (0..<40).map { "k-\($0)" }
    static let chained = Array(books.prefix(10))
    static let expectedOrder = books + chained
    static let syscalls = ["pwrite64", "fdatasync", "fsync"]

    @Test func killedAtEveryWriteAndSyncThePushLosesNothingAndAppliesNothingTwice() throws {
        let snapshot = try Snapshot.make()
        let stress = ProcessInfo.processInfo.environment["LIB_STRESS"] == "1"
        let uninterrupted = try snapshot.trial(killingAt: nil)
        var killedAt: [String: [Int]] = [:]
        for syscall in Self.syscalls {
            let calls = uninterrupted.calls[syscall, default: 0]
            guard calls > 0 else { continue }
            let points = stress ? Array(1...calls) : Array(Set([1, (calls + 1) / 2, calls])).sorted()
            for n in points {
                let trial = try snapshot.trial(killingAt: (syscall, n))
                // A push that made fewer calls this time (a batch recorded
                // on time rather than on count) is not killed, and must
                // then simply have succeeded.
                let reached = trial.calls[syscall, default: 0] >= n
                #expect(trial.killed == reached, "\(syscall) #\(n): killed \(trial.killed), calls \(trial.calls)")
                if trial.killed { killedAt[syscall, default: []].append(n) }
            }
        }
        #expect(!killedAt["pwrite64", default: []].isEmpty && !killedAt["fdatasync", default: []].isEmpty,
                "killed at writes and at syncs: \(killedAt); an uninterrupted push made \(uninterrupted.calls)")
        print("50-write push: \(uninterrupted.calls) calls; killed at \(killedAt.sorted { $0.key < $1.key })")
    }

    /// The starting point of every trial, and one trial from it.
    struct Snapshot {
        let alice: LibHarness
        let dir: TemporaryDirectory
        let port: Int
        let account: String
        var store: String { alice.storePath(account) }
        var serverDatabase: String { dir.file("server.sqlite") }
        static let storeFiles = ["", "-wal", "-shm"]

        static func make() throws -> Snapshot {
            let server = try startDemoServer(arguments: ["--fault-control"])
            // The snapshot outlives this server: it keeps the directory.
            let dir = try #require(server.directory)
            let alice = try LibHarness()
            try alice.login("alice", to: server)
            let account = alice.account("alice", on: server)
            for book in books {
                try #require(try alice.lib("edit", "books/\(book)", "--create", "title=Crash \(book)", "copies:=0").status == 0)
            }
            try #require(try alice.lib("push").status == 0)
            for book in books { try #require(try alice.lib("edit", "books/\(book)", "copies:=1").status == 0) }
            // As if a push had sent every write in a v2 batch and got no
            // answer: the next edits queue behind them instead of merging (a
            // push that is refused sends nothing, and stops at the first 503).
            try alice.sql(account, "UPDATE outbox SET attempts = 1, sent_with = 'v2'")
            for book in chained { try #require(try alice.lib("edit", "books/\(book)", "copies:=2").status == 0) }
            try #require(try alice.pending() == expectedOrder.count)
            server.stop()
            let snapshot = Snapshot(alice: alice, dir: dir, port: server.port, account: account)
            for suffix in storeFiles {
                try copyIfPresent(snapshot.serverDatabase + suffix, to: dir.file("snapshot-server.sqlite" + suffix))
                try copyIfPresent(snapshot.store + suffix, to: dir.file("snapshot-store.sqlite" + suffix))
            }
            return snapshot
        }

        struct Trial {
            /// Calls of each traced system call the push made before it ended.
            let calls: [String: Int]
            let killed: Bool
        }

        /// Restores the snapshot, pushes under strace (killed at the Nth call
        /// of one system call, when given), checks the store, pushes again
        /// cleanly and checks what the server applied.
        func trial(killingAt point: (syscall: String, n: Int)?, sourceLocation: SourceLocation = #_sourceLocation) throws -> Trial {
            for suffix in Self.storeFiles {
                try restore(dir.file("snapshot-server.sqlite" + suffix), to: serverDatabase + suffix)
                try restore(dir.file("snapshot-store.sqlite" + suffix), to: store + suffix)
            }
            let server = try ServerProcess(database: serverDatabase, listen: "127.0.0.1:\(port)")
            defer { server.stop() }
            let label = point.map { "killed at \($0.syscall) #\($0.n)" } ?? "not killed"

            let trace = dir.file("trace")
            var arguments = ["-f", "-q", "-o", trace, "-e", "trace=" + PushCrashPointTests.syscalls.joined(separator: ",")]
            if let point { arguments.append("--inject=\(point.syscall):signal=SIGKILL:when=\(point.n)") }
            let traced = try CommandRunner.run("/usr/bin/strace", arguments + [BuiltProducts.path("lib"), "push"],
                                               environment: alice.environment, timeout: 120)
            let lines = try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n")
            var calls: [String: Int] = [:]
            for syscall in PushCrashPointTests.syscalls { calls[syscall] = lines.filter { $0.contains(" \(syscall)(") }.count }
            let killed = lines.contains { $0.contains("+++ killed by SIGKILL") }
            if !killed { #expect(traced.status == 0, "\(label)\n\(traced)", sourceLocation: sourceLocation) }
            #expect(try alice.integrityCheck(account) == "ok", "\(label): after the kill", sourceLocation: sourceLocation)

            let again = try alice.lib("push", "--wait", "30")
            #expect(again.status == 0, "\(label)\n\(again)", sourceLocation: sourceLocation)
            #expect(try alice.integrityCheck(account) == "ok", "\(label): after the clean push", sourceLocation: sourceLocation)
            #expect(try alice.pending() == 0 && alice.conflicts() == 0, "\(label): nothing lost", sourceLocation: sourceLocation)

            let order = try serverWriteOrder(server, user: "alice")
            #expect(order.count == books.count + expectedOrder.count, "\(label): \(order.count) writes applied",
                    sourceLocation: sourceLocation)
            #expect(Array(order.suffix(expectedOrder.count)) == expectedOrder, "\(label): server order = outbox order",
                    sourceLocation: sourceLocation)
            for book in [chained[0], chained[9], books[10], books[39]] {
                let history = try serverHistory(server, book: book)
                let copies = chained.contains(book) ? [0, 1, 2] : [0, 1]
                #expect(history.map(\.version) == copies.map { $0 + 1 }, "\(label): \(book) history \(history)",
                        sourceLocation: sourceLocation)
                #expect(zip(history, copies).allSatisfy { $0.document?.contains("\"copies\":\($1)") == true },
                        "\(label): \(book) history \(history)", sourceLocation: sourceLocation)
                let cached = try CommandRunner.run("/usr/bin/sqlite3", ["-separator", " ", store,
                    "SELECT etag, body LIKE '%\"copies\":\(copies.last!)%' FROM documents WHERE path = 'books/\(book)'"]).stdout
                let current = try CommandRunner.run("/usr/bin/sqlite3", [serverDatabase,
                    "SELECT etag FROM books WHERE id = '\(book)'"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
                #expect(cached == "\(current) 1\n", "\(label): \(book) cached as the server's last version", sourceLocation: sourceLocation)
            }
            return Trial(calls: calls, killed: killed)
        }

        private static func copyIfPresent(_ source: String, to destination: String) throws {
            guard FileManager.default.fileExists(atPath: source) else { return }
            try FileManager.default.copyItem(atPath: source, toPath: destination)
        }

        private func restore(_ source: String, to destination: String) throws {
            try? FileManager.default.removeItem(atPath: destination)
            if FileManager.default.fileExists(atPath: source) {
                try FileManager.default.copyItem(atPath: source, toPath: destination)
            }
        }
    }
}
