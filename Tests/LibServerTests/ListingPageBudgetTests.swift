import Foundation
import LibJSON
import Testing
import TestSupport

/// A listing page holds about 4 MiB of documents at most (issue 39): four
/// readers asking at once for 1,000 books of 1 MiB each keep lib-server
/// under 300 MB, and the short pages' `next` continues them to the end.
@Suite struct ListingPageBudgetTests {
    @Test func fourReadersOfLargeBooksKeepTheServerSmall() throws {
        let dir = try TemporaryDirectory("lib-server-large")
        let database = dir.file("server.sqlite")
        // The schema and demo users, then 300 books of 1 MiB written straight
        // into the database (through the protocol it would take minutes).
        try ServerProcess(database: database).stop()
        let filled = try CommandRunner.run("/usr/bin/sqlite3", [database, """
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 300)
            INSERT INTO books (id, version, etag, document)
            SELECT printf('big-%03d', i), 1, printf('"1-big%03d"', i),
                   json_object('id', printf('big-%03d', i), 'title', 'Large ' || i, 'notes', printf('%.*c', 1048000, 'x'))
            FROM n;
            """], timeout: 120)
        try #require(filled.status == 0, "\(filled)")
        let server = try ServerProcess(database: database)
        let login = try HTTPTestClient(port: server.port).request("POST", "/v1/sessions", headers: [("Content-Type", "application/json")],
                                                                body: #"{"username":"carol","password":"carol-demo"}"#)
        let carol = try #require(try JSONParser.parse(login.body)["token"]?.stringValue, "\(login.status)")
        let ids = Shared<[[String]]>([])
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            var seen: [String] = [], after: String?
            for _ in 0..<400 {
                guard let client = try? HTTPTestClient(port: server.port, timeout: 60),
                      let answer = try? client.request("GET", "/v1/books?limit=1000" + (after.map { "&after=" + $0 } ?? ""),
                                                       headers: [("Authorization", "Bearer \(carol)")]),
                      answer.status == 200, let page = try? JSONParser.parse(answer.body) else { break }
                seen += (page["items"]?.arrayValue ?? []).compactMap { $0["id"]?.stringValue }
                guard let next = page["next"]?.stringValue else { break }
                after = next
            }
            ids.withLock { $0.append(seen) }
        }
        let peak = try Self.peakResidentKB(of: server.process.processIdentifier)
        for walk in ids.value {
            let big = walk.filter { $0.hasPrefix("big-") }
            #expect(big == (1...300).map { String(format: "big-%03d", $0) }, "every book once, in order: \(big.count)")
        }
        #expect(ids.value.count == 4)
        #expect(peak < 300 * 1024, "lib-server's peak RSS: \(peak / 1024) MB")
        print("four readers of 300 books of 1 MiB: lib-server's peak RSS \(peak / 1024) MB")
    }

    /// The budget counts bytes, not characters: books of 1.5 M characters
    /// of 3 bytes each (4.5 MB) go one a page, where counting characters
    /// would put two in the 4 MiB budget (9 MB).
    @Test func thePageBudgetCountsBytesNotCharacters() throws {
        let dir = try TemporaryDirectory("lib-server-wide")
        let database = dir.file("server.sqlite")
        try ServerProcess(database: database).stop()
        let filled = try CommandRunner.run("/usr/bin/sqlite3", [database, """
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3)
            INSERT INTO books (id, version, etag, document)
            SELECT printf('wide-%d', i), 1, printf('"1-wide%d"', i),
                   json_object('id', printf('wide-%d', i), 'title', 'Wide ' || i,
                               'notes', replace(hex(zeroblob(1500000)), '00', '€'))
            FROM n;
            """], timeout: 120)
        try #require(filled.status == 0, "\(filled)")
        let server = try ServerProcess(database: database)
        let client = try HTTPTestClient(port: server.port, timeout: 60)
        let login = try client.request("POST", "/v1/sessions", headers: [("Content-Type", "application/json")],
                                       body: #"{"username":"carol","password":"carol-demo"}"#)
        let carol = try #require(try JSONParser.parse(login.body)["token"]?.stringValue, "\(login.status)")
        let answer = try client.request("GET", "/v1/books?limit=1000&after=wide-0", headers: [("Authorization", "Bearer \(carol)")])
        let page = try JSONParser.parse(answer.body)
        #expect(answer.status == 200)
        #expect(page["items"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == ["wide-1"])
        #expect(page["next"]?.stringValue == "wide-1")
    }

    static func peakResidentKB(of pid: Int32) throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") } ?? ""
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? -1
    }
}
