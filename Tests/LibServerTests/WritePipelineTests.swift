import Foundation
import LibHTTPServer
import LibJSON
@testable import LibServer
import LibStore
import Synchronization
import Testing
import TestSupport

/// The write pipeline as the database sees it (issue 46): a write reads its
/// book once, the change feed's lock is taken only once every book is
/// written, and a server with a single connection answers every read (a
/// handler that took a second connection while its token check holds the
/// first would wait forever).
@Suite struct WritePipelineTests {
    /// An SQLite connection that notes each statement and lock, in order.
    final class ObservedConnection: SQLConnection {
        let connection: SQLiteConnection
        private(set) var log: [String] = []

        init(_ connection: SQLiteConnection) { self.connection = connection }

        var dialect: SQLDialect { connection.dialect }
        func query(_ sql: String, _ values: [SQLValue]) throws -> [Row] {
            log.append(sql)
            return try connection.query(sql, values)
        }
        func run(_ sql: String, _ values: [SQLValue]) throws -> Int {
            log.append(sql)
            return try connection.run(sql, values)
        }
        func runScript(_ sql: String) throws { try connection.runScript(sql) }
        func transaction<T>(_ body: () throws -> T) throws -> T { try connection.transaction(body) }
        func readTogether<T>(_ body: () throws -> T) throws -> T { try connection.readTogether(body) }
        func lock(_ name: String) throws {
            log.append("lock " + name)
            try connection.lock(name)
        }

        func forget() { log.removeAll() }
        /// The statements that read a book's row to write it.
        var bookReads: Int { log.filter { $0.hasPrefix("SELECT id, version, etag, document FROM books WHERE id") }.count }
    }

    let directory: TemporaryDirectory
    let database: ObservedConnection
    let service: LibraryService
    let token: String

    init() throws {
        directory = try TemporaryDirectory("write-pipeline")
        let first = try SQLiteConnection(path: directory.file("server.sqlite"))
        _ = try ServerMigrator(for: .sqlite).migrate(first, location: "test")
        database = ObservedConnection(first)
        // One connection: every request, its token check included, has to make do with it.
        let store = ServerStore(first: database, others: [])
        try DemoData.install(in: store, at: ServerClock.system.now())
        service = LibraryService(store: store)
        let login = try Self.send(service, "POST", "/v1/sessions", body: #"{"username":"alice","password":"alice-demo"}"#)
        token = try #require(try JSONParser.parse(login.body)["token"]?.stringValue)
    }

    static func send(_ service: LibraryService, _ method: String, _ path: String, token: String? = nil,
                     headers: [(String, String)] = [], body: String = "") throws -> HTTPResponse {
        try service.answer(method, path, token: token, headers: headers, body: body)
    }

    func send(_ method: String, _ path: String, headers: [(String, String)] = [], body: String = "") throws -> HTTPResponse {
        try Self.send(service, method, path, token: token, headers: headers, body: body)
    }

    func batch(_ items: [JSONValue]) throws -> [JSONValue] {
        let answer = try send("POST", "/v2/writes", body: JSONValue.object(JSONObject([("writes", .array(items))])).serialized())
        return try JSONParser.parse(answer.body)["results"]?.arrayValue ?? []
    }

    @Test func aV1WriteReadsItsBookOnce() throws {
        let etag = try #require(try send("GET", "/v1/books/b-7").headers["ETag"])
        database.forget()
        let put = try send("PUT", "/v1/books/b-7", headers: [("If-Match", etag), ("Idempotency-Key", "k-1")], body: #"{"title":"Dune"}"#)
        #expect(put.status == 200)
        #expect(database.bookReads == 1, "\(database.log)")
        database.forget()
        let stale = try send("DELETE", "/v1/books/b-7", headers: [("If-Match", etag), ("Idempotency-Key", "k-2")])
        #expect(stale.status == 412)
        #expect(database.bookReads == 1)
    }

    /// Three writes of n-1 and one of b-7 in one batch: each book read once.
    @Test func aBatchReadsEachOfItsBooksOnce() throws {
        let etag = try #require(try send("GET", "/v1/books/b-7").headers["ETag"])
        database.forget()
        let results = try batch([
            WriteBatchProtocolTests.create("c-1", "n-1", ["title": "One"]),
            WriteBatchProtocolTests.update("u-7", "b-7", ifMatch: etag, set: ["copies": 7], seen: ["copies": 3]),
            WriteBatchProtocolTests.create("c-2", "n-1", ["title": "One again"]),
        ])
        #expect(results.map { $0["status"] } == [201, 200, 412])
        #expect(database.bookReads == 2, "\(database.log)")
    }

    /// The feed's lock serializes every writer's commit: a batch takes it
    /// once, after its last book is written, not from its first write on.
    @Test func theChangeFeedIsWrittenOnceAfterEveryBook() throws {
        database.forget()
        let results = try batch((1...5).map { WriteBatchProtocolTests.create("c-\($0)", "n-\($0)", ["title": .string("Book \($0)")]) })
        #expect(results.allSatisfy { $0["status"] == 201 })
        let log = database.log
        let feedLocks = log.indices.filter { log[$0] == "lock " + ChangeLog.lockName }
        let lastBookWrite = try #require(log.lastIndex { $0.hasPrefix("INSERT INTO history") })
        let firstFeedWrite = try #require(log.firstIndex { $0.contains("INSERT INTO changes") })
        #expect(feedLocks.count == 1)
        #expect(feedLocks.allSatisfy { $0 > lastBookWrite && $0 < firstFeedWrite }, "\(log)")
    }

    /// Every signed-in read on a server with one connection: the token's
    /// check and the answer share it.
    @Test func everyReadIsAnsweredOnOneConnection() throws {
        let answered = Mutex<[Int]>([])
        let done = DispatchSemaphore(value: 0)
        let service = self.service, token = self.token
        Thread {
            let paths = ["/v1/me", "/v1/books", "/v1/books/b-7", "/v1/books/b-7/history", "/v1/schemas/book", "/v1/changes"]
            for path in paths {
                let status = (try? Self.send(service, "GET", path, token: token).status) ?? -1
                answered.withLock { $0.append(status) }
            }
            done.signal()
        }.start()
        #expect(done.wait(timeout: .now() + 30) == .success, "a read waited for a second connection")
        #expect(answered.withLock { $0 } == [200, 200, 200, 200, 200, 200])
    }
}
