import Foundation
import LibJSON
@testable import LibServer
import Testing
import TestSupport

/// A change-feed page holds about 4 MiB of documents at most, as a listing
/// page does (issue 47: four readers of 100 books of 1 MiB took lib-server
/// from 43 MB to 1,522 MB), and always at least one change; `next` goes on
/// from where the page stopped and `more` says that it should.
@Suite struct ChangeFeedPageBudgetTests {
    private static let mebibyte = 1024 * 1024

    @Test func aPageEndsAtItsByteBudgetAndAlwaysHoldsOneChange() throws {
        let directory = try TemporaryDirectory("lib-server-feed-budget")
        let store = try ServerDatabase.open(try TestDatabase.fresh(in: directory))
        let sizes = [100, 1_500_000, 1_500_000, 1_500_000, 5_000_000, 100]
        try store.write { db in
            for (index, size) in sizes.enumerated() {
                let document = JSONObject([("title", .string("Book \(index)")), ("notes", .string(String(repeating: "é", count: size / 2)))])
                _ = try BookStore.write("s-\(index)", document: document, over: nil, by: "test", at: 0, in: db)
            }
            try ChangeLog.record(sizes.indices.map { ChangeLog.Change(id: "s-\($0)", deleted: false) }, by: nil, at: 0,
                                 retention: ChangeLog.defaultRetention, in: db)
        }
        var pages: [[String]] = [], after: Int64 = 0, more = [Bool]()
        while true {
            let page = try store.read { try ChangeLog.page(after: after, limit: 100, maxBytes: 4 * Self.mebibyte, in: $0) }
            guard let end = page.end else { break }
            pages.append(page.entries.map(\.id))
            more.append(page.more)
            after = end
        }
        // Two-byte letters: the budget counts bytes, not characters.
        #expect(pages == [["s-0", "s-1", "s-2"], ["s-3"], ["s-4"], ["s-5"]])
        #expect(more == [true, true, true, false])
        let limited = try store.read { try ChangeLog.page(after: 0, limit: 2, maxBytes: 4 * Self.mebibyte, in: $0) }
        #expect(limited.entries.map(\.id) == ["s-0", "s-1"] && limited.more)
    }

    /// 100 books of 1 MiB, and one of 5 MiB, written straight into the
    /// database (through the protocol a book is at most 1 MiB, and it would
    /// take minutes); four readers walk the feed at once.
    @Test func fourReadersOfLargeBooksWalkTheFeedInPagesOfAboutFourMebibytes() throws {
        let directory = try TemporaryDirectory("lib-server-feed-large")
        let database = try TestDatabase.fresh(in: directory)
        let first = try ServerProcess(database: database)
        let alice = try Self.signIn(port: first.port)
        let start = try #require(try HTTPTestClient(port: first.port).request("GET", "/v1/changes", headers: alice).json?["next"]?.stringValue)
        first.stop()
        _ = try TestDatabase.query(database, Self.largeBooks(postgres: database.hasPrefix("postgresql://")))
        #expect(try TestDatabase.integer(database, "SELECT count(*) FROM changes WHERE book_id LIKE 'big-%'") == 101)

        let server = try ServerProcess(database: database)
        let token = try Self.signIn(port: server.port)
        let before = try Self.residentKB(of: server.process.processIdentifier, "VmRSS")
        let walks = Shared<[[(ids: [String], bytes: Int, more: Bool)]]>([])
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            var since = start, pages: [(ids: [String], bytes: Int, more: Bool)] = []
            for _ in 0..<200 {
                guard let client = try? HTTPTestClient(port: server.port, timeout: 60),
                      let answer = try? client.request("GET", "/v1/changes?limit=1000&since=\(since)", headers: token),
                      answer.status == 200, let page = answer.json else { break }
                let items = page["items"]?.arrayValue ?? []
                let bytes = items.reduce(0) { $0 + ($1["document"].map { $0.serialized().utf8.count } ?? 0) }
                pages.append((items.compactMap { $0["id"]?.stringValue }, bytes, page["more"]?.boolValue ?? false))
                guard let next = page["next"]?.stringValue, page["more"]?.boolValue == true else { break }
                since = next
            }
            walks.withLock { $0.append(pages) }
        }
        let peak = try Self.residentKB(of: server.process.processIdentifier, "VmHWM")
        let expected = (1...101).map { String(format: "big-%03d", $0) }
        #expect(walks.value.count == 4)
        for pages in walks.value {
            #expect(pages.flatMap(\.ids) == expected, "every change once, in order")
            for page in pages {
                #expect(!page.ids.isEmpty)
                // A page stays within the budget, or is one change alone.
                #expect(page.bytes <= 4 * Self.mebibyte + 64 || page.ids.count == 1, "\(page.ids.count) changes, \(page.bytes) bytes")
            }
            #expect(pages.map(\.more) == Array(repeating: true, count: pages.count - 1) + [false])
            #expect(pages.contains { $0.ids == ["big-101"] }, "the 5 MiB book comes alone")
            #expect(pages.count > 20 && pages.count < 101, "\(pages.count) pages")
        }
        #expect(peak < 300 * 1024, "lib-server's peak RSS: \(peak / 1024) MB")
        print("four readers of the feed over 100 books of 1 MiB and one of 5 MiB: lib-server's RSS \(before / 1024) MB before, peak \(peak / 1024) MB; \(walks.value.first?.count ?? 0) pages each")
    }

    /// SQL that writes the large books and their places in the feed.
    private static func largeBooks(postgres: Bool) -> String {
        if postgres {
            return """
                INSERT INTO books (id, version, etag, document)
                SELECT 'big-' || lpad(i::text, 3, '0'), 1, '"1-big' || lpad(i::text, 3, '0') || '"',
                       json_build_object('id', 'big-' || lpad(i::text, 3, '0'), 'title', 'Large ' || i,
                                         'notes', repeat('x', CASE WHEN i = 101 THEN 5000000 ELSE 1048000 END))::text
                FROM generate_series(1, 101) AS i;
                INSERT INTO changes (book_id, deleted, at) SELECT id, 0, 0 FROM books WHERE id LIKE 'big-%' ORDER BY id;
                """
        }
        return """
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 101)
            INSERT INTO books (id, version, etag, document)
            SELECT printf('big-%03d', i), 1, printf('"1-big%03d"', i),
                   json_object('id', printf('big-%03d', i), 'title', 'Large ' || i,
                               'notes', printf('%.*c', CASE WHEN i = 101 THEN 5000000 ELSE 1048000 END, 'x'))
            FROM n;
            INSERT INTO changes (book_id, deleted, at) SELECT id, 0, 0 FROM books WHERE id LIKE 'big-%' ORDER BY id;
            """
    }

    private static func signIn(port: Int) throws -> [(String, String)] {
        let login = try HTTPTestClient(port: port).request("POST", "/v1/sessions", headers: [("Content-Type", "application/json")],
                                                           body: #"{"username":"alice","password":"alice-demo"}"#)
        let token = try #require(try JSONParser.parse(login.body)["token"]?.stringValue, "\(login.status)")
        return [("Authorization", "Bearer \(token)")]
    }

    /// A `/proc/PID/status` figure in kB: `VmRSS` now, `VmHWM` the peak.
    static func residentKB(of pid: Int32, _ field: String) throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        let line = status.split(separator: "\n").first { $0.hasPrefix(field + ":") } ?? ""
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? -1
    }
}
