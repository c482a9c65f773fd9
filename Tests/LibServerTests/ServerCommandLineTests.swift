import Foundation
import LibJSON
import Testing
import TestSupport

@Suite struct ServerCommandLineTests {
    @Test func sigtermStopsCleanlyAndDataSurvivesARestart() throws {
        let dir = try TemporaryDirectory()
        let db = try TestDatabase.fresh(in: dir)
        let server = try ServerProcess(database: db)
        let client = try HTTPTestClient(port: server.port)
        let login = try client.request("POST", "/v1/sessions", headers: [("Content-Type", "application/json")],
                                       body: #"{"username":"bob","password":"bob-demo"}"#)
        let token = try #require(login.json?["token"]?.stringValue)
        let etag = try #require(try client.request("GET", "/v1/books/b-7", headers: [("Authorization", "Bearer \(token)")]).header("ETag"))
        let put = try client.request("PUT", "/v1/books/b-7", headers: [("Authorization", "Bearer \(token)"), ("If-Match", etag),
            ("Idempotency-Key", "k"), ("Content-Type", "application/json")], body: #"{"title":"Kept"}"#)
        #expect(put.status == 200)
        #expect(server.stop() == 0)

        let restarted = try ServerProcess(database: db)
        let again = try HTTPTestClient(port: restarted.port)
        let read = try again.request("GET", "/v1/books/b-7", headers: [("Authorization", "Bearer \(token)")])
        #expect(read.json?["title"] == "Kept", "--demo on restart must not reseed over written books")
        #expect(restarted.stop() == 0)
    }

    @Test func listensOnIPv6Loopback() throws {
        let dir = try TemporaryDirectory()
        let server = try ServerProcess(database: try TestDatabase.fresh(in: dir), listen: "[::1]:0")
        #expect(server.host == "[::1]")
        let client = try HTTPTestClient(host: "::1", port: server.port)
        #expect(try client.request("GET", "/v1/me").status == 401)
    }

    @Test func userAddReadsThePasswordFromStdin() throws {
        let dir = try TemporaryDirectory()
        let db = try TestDatabase.fresh(in: dir)
        let added = try CommandRunner.run(BuiltProducts.path("lib-server"), ["user", "add", "dora", "--role", "librarian", "--db", db], stdin: "dora-secret\n")
        #expect(added.status == 0, "\(added)")
        #expect(added.stdout == "Added librarian dora\n")
        let twice = try CommandRunner.run(BuiltProducts.path("lib-server"), ["user", "add", "dora", "--db", db], stdin: "x\n")
        #expect(twice.status == 1)
        #expect(twice.stderr == "lib-server: user 'dora' already exists\n")
        // The rule lib checks names from the server with (issue 23).
        for name in ["../x", "a/b", ".hidden", "%F{red}x"] {
            let refused = try CommandRunner.run(BuiltProducts.path("lib-server"), ["user", "add", name, "--db", db], stdin: "x\n")
            #expect(refused.status == 1 && refused.stderr.contains("use 1 to 64 letters, digits, '.', '_' or '-', not starting with '.'"), "\(refused)")
        }

        let server = try ServerProcess(database: db, demo: false)
        let client = try HTTPTestClient(port: server.port)
        let login = try client.request("POST", "/v1/sessions", headers: [("Content-Type", "application/json")],
                                       body: #"{"username":"dora","password":"dora-secret"}"#)
        #expect(login.status == 201)
        #expect(login.json?["account"]?["role"] == "librarian")
    }

    @Test(arguments: [
        (["--listen", "127.0.0.1:0"], "lib-server: --db PATH|URI is required"),
        (["--db", "x", "--listen", "nowhere"], "lib-server: --listen wants HOST:PORT, as in 127.0.0.1:8080 or [::1]:0, not 'nowhere'"),
        (["--db", "x", "--frobnicate"], "lib-server: unknown argument '--frobnicate'"),
        (["--db", "x", "--session-lifetime", "0"], "lib-server: --session-lifetime wants a positive number of seconds, not '0'"),
        (["--db", "x", "--fault", "explode"], "lib-server: invalid fault 'explode': unknown action 'explode' (drop-before-write, drop-after-commit, truncate, delay=MS, status=CODE, hold-before-commit=MS, hold-after-commit=MS)"),
    ])
    func badArgumentsExit2NamingTheProblem(arguments: [String], message: String) throws {
        let result = try CommandRunner.run(BuiltProducts.path("lib-server"), arguments)
        #expect(result.status == 2, "\(result)")
        #expect(result.stderr.hasPrefix(message + "\n"), "\(result)")
    }

    @Test func aPostgreSQLServerThatIsNotThereIsNamedWithoutItsPassword() throws {
        let result = try CommandRunner.run(BuiltProducts.path("lib-server"),
                                           ["--db", "postgresql://lib:secret@127.0.0.1:1/library", "--listen", "127.0.0.1:0"])
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("lib-server: PostgreSQL: cannot connect to postgresql://lib:***@127.0.0.1:1/library: "),
                "\(result)")
        #expect(!result.stderr.contains("secret"))
    }

    @Test func aFileThatIsNotADatabaseIsRefusedClearly() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("notes.txt")
        try Data(String(repeating: "not a database\n", count: 300).utf8).write(to: URL(fileURLWithPath: path))
        let result = try CommandRunner.run(BuiltProducts.path("lib-server"), ["--db", path, "--listen", "127.0.0.1:0"])
        #expect(result.status == 1)
        #expect(result.stderr == "lib-server: The file is not a lib database (\(path))\n")
    }
}
