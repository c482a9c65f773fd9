import Foundation
import Testing
import TestSupport

/// Sync state at a glance (issue 49): the server says with every feed page
/// and batch answer how many books changed that this device has not pulled
/// (its own writes not counted); `lib status` and the prompt show it as
/// `↓N` without a request; the last complete pull is kept apart from the
/// last contact; `--json` pulls and pushes write NDJSON progress records.
@Suite struct SyncStateTests {
    func statusJSON(_ lib: LibHarness) throws -> [String: Any] {
        let status = try lib.lib("status", "--json")
        #expect(status.status == 0, "\(status)")
        return (try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [[String: Any]])?.first ?? [:]
    }

    @Test func anotherDevicesChangesShowAsBehindExactlyWithoutARequest() throws {
        let server = try startDemoServer()
        let laptop = try LibHarness(), phone = try LibHarness()
        try laptop.login("alice", to: server)
        try phone.login("alice", to: server)
        #expect(try laptop.lib("pull").status == 0)
        #expect(try phone.lib("pull").status == 0)
        let afterPull = try statusJSON(laptop)
        #expect(afterPull["behind"] as? Int == 0, "\(afterPull)")

        // The same user on another device changes K books.
        let k = 7
        for book in 1...k { #expect(try phone.lib("edit", "books/b-\(book)", "copies:=\(40 + book)").status == 0) }
        #expect(try phone.lib("push").status == 0)
        #expect(try statusJSON(phone)["behind"] as? Int == 0, "a device's own writes never count as behind")

        // This device pushes a write of its own: the answer says what it is behind by.
        #expect(try laptop.lib("edit", "books/b-15", "copies:=77").status == 0)
        #expect(try laptop.lib("push").status == 0)
        server.stop()
        let status = try statusJSON(laptop)
        #expect(status["behind"] as? Int == k, "exactly K, its own write not counted: \(status)")
        let contact = status["last_contact"] as? Int, pulled = status["last_complete_pull"] as? Int
        #expect(contact != nil && pulled != nil && contact! >= pulled!, "the last contact is the push, after the last complete pull: \(status)")
        let account = laptop.account("alice", on: server)
        #expect(try laptop.lib("status", "--prompt", environment: ["LANG": "C.UTF-8"]).stdout == "alice ↓\(k)\n")
        #expect(try laptop.lib("status", "--prompt", environment: ["LC_ALL": "C"]).stdout == "alice v\(k)\n", "no UTF-8 arrow")
        let long = try laptop.lib("status")
        #expect(long.stdout.contains("\(k) books changed on the server since your last pull (it said so"), "\(long)")
        #expect(long.stdout.contains("run `lib pull`."), "\(long)")
        // The prompt file, which the snippets read without starting lib, says the same.
        let file = laptop.home.path + "/data/accounts/\(account)/prompt"
        #expect(try String(contentsOfFile: file, encoding: .utf8).hasPrefix("alice ↓\(k)\nalice v\(k)\n"))

        // A pull brings them, and the count goes back to 0.
        let restarted = try server.restarted()
        #expect(try laptop.lib("pull").status == 0)
        #expect(try statusJSON(laptop)["behind"] as? Int == 0)
        #expect(try laptop.lib("status", "--prompt", environment: ["LANG": "C.UTF-8"]).stdout == "")
        restarted.stop()
    }

    /// `--json` progress: NDJSON records on stderr, one per listing page
    /// or batch answered but the last; stdout keeps its one document.
    @Test func jsonPullsAndPushesWriteProgressRecords() throws {
        let logged = try PullSearchTests.LoggedServer(arguments: ["--max-batch-writes", "10"], extraBooks: 2_500)
        let alice = try LibHarness()
        try alice.login("alice", to: logged.server)
        let account = alice.account("alice", on: logged.server)
        func records(_ result: CommandResult, _ command: String) -> [[String: Any]] {
            #expect((try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8))) != nil, "stdout keeps its one document: \(result)")
            let lines = result.stderr.split(separator: "\n")
            let records = lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            #expect(records.count == lines.count, "every line of stderr is a JSON object: \(result.stderr)")
            #expect(records.allSatisfy { $0["event"] as? String == "progress" && $0["command"] as? String == command
                        && $0["account"] as? String == account }, "\(records)")
            return records
        }
        let pull = try alice.lib("--json", "pull")
        #expect(pull.status == 0, "\(pull)")
        let pulled = records(pull, "pull")
        #expect(pulled.count >= 2, "a record for each listing page but the last: \(pull.stderr)")
        #expect(pulled.allSatisfy { $0["total"] as? Int == 2_520 })
        let listed = pulled.compactMap { $0["listed"] as? Int }
        #expect(listed == listed.sorted() && listed.allSatisfy { $0 < 2_520 }, "\(listed)")

        for book in 1...20 { #expect(try alice.lib("edit", "books/b-\(book)", "copies:=\(100 + book)").status == 0) }
        let push = try alice.lib("--json", "push")
        #expect(push.status == 0, "\(push)")
        let pushed = records(push, "push")
        #expect(pushed.map { $0["answered"] as? Int } == [10], "two batches of 10, the last unsaid: \(push.stderr)")
        #expect(pushed.allSatisfy { $0["pending"] as? Int == 20 })
        #expect(try alice.lib("--json", "push").stderr.isEmpty, "nothing to push: no record")
    }
}
