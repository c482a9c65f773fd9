import Foundation
import LibStore
import Synchronization
import Testing
import TestSupport

/// `Database.copy(into:)` (lib-server backup) and `DatabaseOptions.alone()`
/// (lib-server restore).
@Suite struct DatabaseCopyTests {
    /// One page a step while another connection commits all along: the copy
    /// is the snapshot it started from, and never starts over (a step per
    /// page, the last one finishing).
    @Test func aCopyStepByStepUnderAnotherConnectionsWritesIsOneSnapshotAndNeverStartsOver() throws {
        let dir = try TemporaryDirectory()
        let source = try Database(path: dir.file("source.sqlite"))
        try source.execute("CREATE TABLE t (n INTEGER PRIMARY KEY, filler TEXT)")
        try source.execute("""
            WITH RECURSIVE i(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM i WHERE n < 2000)
            INSERT INTO t SELECT n, printf('%.1000c', 'x') FROM i
            """)
        let stop = Atomic<Bool>(false), written = Atomic<Int>(0)
        let writer = Thread {
            guard let other = try? Database(path: dir.file("source.sqlite")) else { return }
            var n = 2001
            while !stop.load(ordering: .relaxed) {
                guard (try? other.run("INSERT INTO t VALUES (?1, 'w')", [.integer(Int64(n))])) != nil else { break }
                written.add(1, ordering: .relaxed)
                n += 1
            }
        }
        writer.start()
        while written.load(ordering: .relaxed) < 10 { usleep(1_000) }
        var options = DatabaseOptions()
        options.walJournal = false
        let copy = try Database(path: dir.file("copy.sqlite"), options: options)
        let before = written.load(ordering: .relaxed)
        let report = try source.copy(into: copy, pagesPerStep: 1)
        let during = written.load(ordering: .relaxed) - before
        stop.store(true, ordering: .relaxed)
        while !writer.isFinished { usleep(1_000) }

        #expect(report.steps == report.pages, "\(report.steps) steps for \(report.pages) pages; \(during) writes meanwhile")
        let count = try #require(try copy.scalar("SELECT count(*) FROM t")?.integer)
        let highest = try #require(try copy.scalar("SELECT max(n) FROM t")?.integer)
        #expect(count == highest && count >= 2000 + Int64(before), "no gap, and every write committed before the copy began")
        #expect(try copy.integrityCheck() == ["ok"])
    }

    @Test func aConnectionAloneIsRefusedWhileAnotherHasTheFileOpenAndKeepsOthersOut() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("db.sqlite")
        var other: Database? = try Database(path: path)
        try other?.execute("CREATE TABLE t (x)")
        var options = DatabaseOptions.alone()
        options.busyTimeoutMilliseconds = 50
        // Busy at once: SQLite's exclusive mode wants the file to itself from the first read.
        let refused = #expect(throws: DatabaseError.self) {
            let alone = try Database(path: path, options: options)
            try alone.execute("BEGIN EXCLUSIVE")
        }
        #expect(refused?.isBusy == true)
        other = nil
        _ = other

        let alone = try Database(path: path, options: options)
        try alone.execute("BEGIN EXCLUSIVE")
        try alone.execute("COMMIT")
        var late = DatabaseOptions()
        late.busyTimeoutMilliseconds = 50
        let kept = #expect(throws: DatabaseError.self) { _ = try Database(path: path, options: late).query("SELECT * FROM t") }
        #expect(kept?.isBusy == true)
    }
}
