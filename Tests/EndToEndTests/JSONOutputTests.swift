import Foundation
import LibJSON
import Testing
import TestSupport

/// Every command's `--json` output, success and failure, checked against its
/// schema in docs/json/ by python3-jsonschema (issue 12). Global options go
/// anywhere on the line, so `--json` is given after the command here.
@Suite struct JSONOutputTests {
    /// Runs `lib ARGS --json`, checks the exit code, stdout against `schema`
    /// (unless nil) and, for a failure, stderr against the error schema.
    @discardableResult
    private func json(_ lib: LibHarness, _ arguments: [String], schema: String?, exit status: Int32,
                      environment: [String: String] = [:], stdin: String? = nil,
                      sourceLocation: SourceLocation = #_sourceLocation) throws -> (CommandResult, JSONValue?) {
        let result = try lib.lib(arguments + ["--json"], stdin: stdin, environment: environment)
        #expect(result.status == status, "\(result)", sourceLocation: sourceLocation)
        var document: JSONValue?
        if let schema {
            try JSONSchemaValidator.validate(result.stdout, against: schema)
            document = try JSONParser.parse(result.stdout)
        } else {
            #expect(result.stdout.isEmpty, "\(result)", sourceLocation: sourceLocation)
        }
        if status == 0 {
            #expect(result.stderr.isEmpty || !result.stderr.hasPrefix("{"), "\(result)", sourceLocation: sourceLocation)
        } else if !(status == 3 && schema != nil && result.stderr.isEmpty) {
            // (A listing that exits 3, such as resolve's, may have said all on stdout.)
            try JSONSchemaValidator.validate(result.stderr, against: "error")
            let error = try JSONParser.parse(result.stderr)
            #expect(error["error"]?["exit_code"] == .integer(Int64(status)), "\(result)", sourceLocation: sourceLocation)
        }
        return (result, document)
    }

    @Test func accountsAndReadsAndWritesValidate() throws {
        let server = try startDemoServer()
        let lib = try LibHarness()
        let alice = lib.account("alice", on: server)

        let (_, login) = try json(lib, ["login", server.baseURL, "--user", "alice", "--password-stdin"], schema: "login",
                                  exit: 0, stdin: "alice-demo\n")
        #expect(login?["account"] == .string(alice))
        try json(lib, ["login", server.baseURL, "--user", "bob", "--password-stdin"], schema: "login", exit: 0, stdin: "bob-demo\n")
        try json(lib, ["login", server.baseURL, "--user", "carol", "--password-stdin"], schema: nil, exit: 4, stdin: "wrong\n")

        let (_, list) = try json(lib, ["switch"], schema: "switch", exit: 0)
        #expect(list?.arrayValue?.count == 2)
        try json(lib, ["switch", "alice"], schema: "switch", exit: 0)
        try json(lib, ["switch", "nobody"], schema: nil, exit: 2)
        let (_, rule) = try json(lib, ["rule", lib.home.path, "bob"], schema: "rule", exit: 0)
        #expect(rule?["account"] == .string(lib.account("bob", on: server)))
        let (_, rules) = try json(lib, ["rule"], schema: "rule", exit: 0)
        #expect(rules?.arrayValue?.count == 1)
        try json(lib, ["rule", "--remove", lib.home.path], schema: "rule", exit: 0)
        try json(lib, ["rule", lib.home.path + "/nowhere", "bob"], schema: nil, exit: 1)

        let (_, book) = try json(lib, ["get", "books/b-7"], schema: "get", exit: 0)
        #expect(book?["title"] == "Dune")
        let (_, books) = try json(lib, ["get", "books"], schema: "get", exit: 0)
        #expect(books?["items"]?.arrayValue?.count == 20)
        try json(lib, ["get", "books/nope"], schema: nil, exit: 1)

        let (_, edit) = try json(lib, ["edit", "books/b-7", "copies:=9"], schema: "edit", exit: 0)
        #expect(edit?["outcome"] == "queued" && edit?["pending"] == 1 && edit?["body"]?["copies"] == 9)
        let (_, pendingBook) = try json(lib, ["get", "books/b-7"], schema: "get", exit: 0)
        #expect(pendingBook?["_pending"]?["changes"] == 1)
        try json(lib, ["edit", "books/b-7", "copies:=9"], schema: "edit", exit: 0)
        try json(lib, ["edit", "books/b-7", "year:=\"soon\""], schema: nil, exit: 1)
        let (_, status) = try json(lib, ["status"], schema: "status", exit: 0)
        #expect(status?.arrayValue?.first?["pending"] == 1)
        let (_, diff) = try json(lib, ["diff"], schema: "diff", exit: 0)
        #expect(diff?["writes"]?.arrayValue?.first?["changes"]?.arrayValue?.first?["field"] == "copies", "\(String(describing: diff))")

        let (_, pushed) = try json(lib, ["push"], schema: "push", exit: 0)
        let writes = pushed?["accounts"]?.arrayValue?.first?["writes"]?.arrayValue ?? []
        #expect(writes.count == 1 && writes.first?["path"] == "books/b-7" && writes.first?["outcome"] == "applied")
        #expect(writes.first?["etag"]?.stringValue?.hasPrefix("\"") == true, "\(String(describing: pushed))")

        let (_, pushedEdit) = try json(lib, ["edit", "books/b-8", "copies:=17", "--push"], schema: "edit", exit: 0)
        #expect(pushedEdit?["push"]?["pushed"] == 1)
        try json(lib, ["resolve"], schema: "resolve", exit: 0)
        #expect(try lib.lib("edit", "books/b-9", "copies:=5").status == 0)
        let (_, discard) = try json(lib, ["discard", "books/b-9"], schema: "discard", exit: 0)
        #expect(discard?["discarded"] == 1 && discard?["left"] == 0, "\(String(describing: discard))")

        let (_, logout) = try json(lib, ["logout", "bob"], schema: "logout", exit: 0)
        #expect(logout?["account"] == .string(lib.account("bob", on: server)) && logout?["revoked"] == true)
        try json(lib, ["logout", "bob"], schema: nil, exit: 2)
    }

    @Test func pushFailuresValidate() throws {
        let server = try startDemoServer()
        let alice = try LibHarness()
        try alice.login("alice", to: server)
        try alice.cache(["books/b-7"], from: server, as: "alice")
        let bob = try LibHarness()
        try bob.login("bob", to: server)
        #expect(try bob.lib("edit", "books/b-7", "title=Dune (bob)", "--push").status == 0)

        #expect(try alice.lib("edit", "books/b-7", "copies:=1").status == 0)
        #expect(try alice.lib("edit", "books/j-1", "--create", "title=New").status == 0)
        // Different fields: a conflict only under the whole-version rule.
        let (_, conflict) = try json(alice, ["push", "--strict"], schema: "push", exit: 3)
        let writes = conflict?["accounts"]?.arrayValue?.first?["writes"]?.arrayValue ?? []
        #expect(writes.map { $0["outcome"] } == ["conflict", "applied"], "\(String(describing: conflict))")
        try json(alice, ["resolve"], schema: "resolve", exit: 3)
        // The view and a choice: one document each, never text (issue 24).
        let (_, view) = try json(alice, ["resolve", "books/b-7"], schema: "resolve", exit: 3)
        let title = view?["fields"]?.arrayValue?.first { $0["field"] == "title" }
        #expect(view?["status"] == "conflict" && title?["theirs"] == "Dune (bob)" && title?["mine"] == "Dune", "\(String(describing: view))")
        let (_, settled) = try json(alice, ["resolve", "books/b-7", "--theirs"], schema: "resolve", exit: 0)
        #expect(settled?["choice"] == "--theirs" && settled?["conflicts"] == 0, "\(String(describing: settled))")
        #expect(settled?["messages"]?.arrayValue?.isEmpty == false, "\(String(describing: settled))")
        // --theirs keeps alice's fields bob did not change: her write waits again.
        let (_, waitingAgain) = try json(alice, ["status", "--prompt"], schema: "status", exit: 0)
        #expect(waitingAgain?["prompt"]?.stringValue?.contains("1") == true, "\(String(describing: waitingAgain))")
        let (_, all) = try json(alice, ["discard", "--all", "--yes"], schema: "discard", exit: 0)
        #expect(all?["discarded"] == 1, "\(String(describing: all))")
        let (_, none) = try json(alice, ["discard", "--all", "--yes"], schema: "discard", exit: 0)
        #expect(none?["discarded"] == 0, "\(String(describing: none))")
        let (_, prompt) = try json(alice, ["status", "--prompt"], schema: "status", exit: 0)
        #expect(prompt?["prompt"]?.stringValue?.isEmpty == true, "nothing waits: \(String(describing: prompt))")

        #expect(try alice.lib("edit", "books/j-2", "--create", "title=Later").status == 0)
        let (_, waiting) = try json(alice, ["status", "--prompt"], schema: "status", exit: 0)
        #expect(waiting?["prompt"]?.stringValue?.isEmpty == false, "\(String(describing: waiting))")
        server.stop()
        let (down, document) = try json(alice, ["push"], schema: "push", exit: 75)
        #expect(document?["accounts"]?.arrayValue?.first?["problem"]?.stringValue?.contains("connection refused") == true, "\(down)")
        #expect(try JSONParser.parse(down.stderr)["error"]?["reason"] == "temporary", "\(down)")
        // A copy from the cache says so, with its age and why.
        let (_, cached) = try json(alice, ["get", "books/b-7"], schema: "get", exit: 0)
        #expect(cached?["_cached"]?["reason"] == "connection-refused" && cached?["_cached"]?["age_seconds"]?.integerValue != nil,
                "\(String(describing: cached))")
        let (_, offline) = try json(alice, ["get", "books/b-7", "--offline"], schema: "get", exit: 0)
        #expect(offline?["_cached"]?["reason"] == "offline-requested", "\(String(describing: offline))")
    }
}
