import Foundation
import LibJSON
import Testing
import TestSupport

/// lib reads at most LIB_MAX_ANSWER_BYTES (8 MiB by default) of one answer
/// and stops the transfer there: a 200 MB answer costs neither memory nor
/// disk, leaves the cache as it was, and the error names the limit.
@Suite struct BoundedAnswerTests {
    static let size = 200 * 1024 * 1024

    @Test(arguments: [true, false])
    func aHugeAnswerIsStoppedAtTheLimit(announced: Bool) throws {
        let server = try startDemoServer()
        let alice = try LibHarness()
        try alice.login("alice", to: server)
        let account = alice.account("alice", on: server)
        #expect(try alice.lib("get", "books/b-7").status == 0)
        let before = try #require(try alice.cacheRow("books/b-7", account: account))
        let storeBefore = alice.storeBytes(account)
        let port = UInt16(server.port)
        server.stop()

        // {"id":"b-7","title":"xxxx…  — 200 MB of it, never in memory at once.
        let length = announced ? "Content-Length: \(Self.size)\r\n" : ""
        let head = Array("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nETag: \"huge\"\r\n\(length)Connection: close\r\n\r\n{\"id\":\"b-7\",\"title\":\"".utf8)
        let peer = try ScriptedPeer(port: port) { _, _ in .stream(head: head, filler: UInt8(ascii: "x"), count: Self.size) }
        let result = try CommandRunner.run("/usr/bin/time", ["-v", BuiltProducts.path("lib"), "get", "books/b-7"],
                                           environment: alice.environment, timeout: 120)
        #expect(result.status == 1, "\(result)")
        #expect(result.stderr.contains("lib: 127.0.0.1:\(port) sent an answer larger than lib's limit of 8 MB (LIB_MAX_ANSWER_BYTES): lib stopped reading it and kept nothing of it."), "\(result)")
        #expect(try JSONParser.parse(result.stdout)["title"]?.stringValue == "Dune", "the cached copy is shown: \(result)")
        let peakKB = try #require(Self.maximumResidentKB(result.stderr), "\(result)")
        #expect(peakKB < 64 * 1024, "max RSS \(peakKB) kB")
        let growth = alice.storeBytes(account) - storeBefore
        #expect(growth < 1024 * 1024, "the store grew by \(growth) bytes")
        #expect(try alice.cacheRow("books/b-7", account: account) == before)
        #expect(peer.receivedRequests.count == 1)
        print("200 MB answer (\(announced ? "Content-Length" : "close-delimited")): max RSS \(peakKB) kB, store growth \(growth) bytes")
    }

    /// The limit is the user's to change, and a collection too large for one
    /// answer is read in smaller pages, each under it.
    @Test func aSmallerLimitStillReadsTheCollectionPageByPage() throws {
        let server = try startDemoServer()
        let alice = try LibHarness()
        try alice.login("alice", to: server)
        let tiny = try alice.lib(["get", "books/b-7"], environment: ["LIB_MAX_ANSWER_BYTES": "10"])
        #expect(tiny.status == 1, "\(tiny)")
        #expect(tiny.stderr == "lib: 127.0.0.1:\(server.port) sent an answer larger than lib's limit of 10 bytes (LIB_MAX_ANSWER_BYTES): lib stopped reading it and kept nothing of it.\n", "\(tiny)")
        let limited = try alice.lib(["get", "books"], environment: ["LIB_MAX_ANSWER_BYTES": "1K"])
        #expect(limited.status == 0, "\(limited)")
        let items = try JSONParser.parse(limited.stdout)["items"]?.arrayValue ?? []
        #expect(items.count == 20, "\(limited)")
        _ = server
    }

    /// "Maximum resident set size (kbytes): 12345" from GNU time -v.
    static func maximumResidentKB(_ report: String) -> Int? {
        let line = report.split(separator: "\n").first { $0.contains("Maximum resident set size") }
        return line.flatMap { Int($0.split(separator: ":").last?.trimmingCharacters(in: .whitespaces) ?? "") }
    }
}

extension LibHarness {
    /// The account store's size on disk, its write-ahead log included.
    func storeBytes(_ account: String) -> Int {
        let path = storePath(account)
        return [path, path + "-wal", path + "-shm"].reduce(0) { total, file in
            total + ((try? FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) ?? 0)
        }
    }
}
