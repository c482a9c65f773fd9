import LibStore
import Testing
import TestSupport

/// The stamp read from a WAL database's index: what lib-server keeps read
/// answers by (`RecentReadAnswers`).
@Suite struct CommitWatchTests {
    @Test func theStampMovesWithEveryCommitOfAnotherConnectionAndWithNothingElse() throws {
        let directory = try TemporaryDirectory("commit-watch")
        let path = directory.file("watched.sqlite")
        let writer = try Database(path: path)
        try writer.execute("CREATE TABLE t (x INTEGER)")
        let watch = try #require(CommitWatch(try Database(path: path)))
        var before = try #require(watch.stamp)
        _ = try writer.scalar("SELECT count(*) FROM t")
        #expect(watch.stamp == before, "a read commits nothing")
        try writer.execute("BEGIN; INSERT INTO t VALUES (1); ROLLBACK")
        #expect(watch.stamp == before, "nor does a rolled-back transaction")
        for round in 0..<100 {
            try writer.execute("INSERT INTO t VALUES (\(round))")
            let after = try #require(watch.stamp)
            #expect(after != before, "commit \(round)")
            before = after
        }
        // A checkpoint moves the pages, not the data: whatever it does to the stamp, a commit after it moves it.
        try writer.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        let checkpointed = try #require(watch.stamp)
        try writer.execute("INSERT INTO t VALUES (1000)")
        #expect(watch.stamp != checkpointed)
    }

    @Test func aDatabaseNotInWALModeHasNoStamp() throws {
        let directory = try TemporaryDirectory("commit-watch")
        var options = DatabaseOptions()
        options.walJournal = false
        let database = try Database(path: directory.file("rollback.sqlite"), options: options)
        try database.execute("CREATE TABLE t (x INTEGER)")
        #expect(CommitWatch(database) == nil)
    }
}
