import Foundation
import LibJSON
import Testing
import TestSupport

/// A seeded randomized trial of four devices of two users over a few books:
/// edits, pushes (plain, `--wait`, killed with SIGKILL), resolves with every
/// choice, discards, logouts and logins with and without `--restore`,
/// server restarts and fault rules. Each device owns one field and writes
/// only it, each value larger than the last, so an independent check of the
/// server's history can tell what must hold: no version ever takes a
/// device's field back to an older value (no write reverts another's
/// change, none is applied twice, each device's order is kept), and at the
/// end every device's last kept edit is on the server. The only exceptions
/// are the ones a user chose: `--mine` or `--theirs` on a real clash (a
/// device's own writes from two sign-ins), which the trial records.
@Suite(.serialized) struct IntentTrialTests {
    struct Device {
        let name: String
        let user: String
        let field: String
        let lib: LibHarness
        var counter = 0
        /// The value of each book's field this device last edited and kept (not discarded).
        var kept: [String: Int] = [:]
    }

    static let books = ["b-1", "b-2", "b-3"]

    /// One trial: its seed, and whether the server speaks protocol v1 only
    /// (`--legacy-protocol`: lib pushes one write a request, under the
    /// whole-version rule) instead of v2 (batches, field preconditions).
    struct Trial: CustomTestStringConvertible, Sendable {
        let seed: UInt64
        var legacy = false
        var testDescription: String { "seed \(seed)\(legacy ? ", v1-only server" : "")" }
    }

    /// LIB_TRIAL_SEED=N (and LIB_TRIAL_LEGACY=1) runs one trial.
    static let trials: [Trial] = {
        let environment = ProcessInfo.processInfo.environment
        if let seed = environment["LIB_TRIAL_SEED"].flatMap({ UInt64($0) }) {
            return [Trial(seed: seed, legacy: environment["LIB_TRIAL_LEGACY"] == "1")]
        }
        return environment["LIB_STRESS"] == "1"
            ? [11, 22, 33, 44, 55].map { Trial(seed: $0) } + [Trial(seed: 66, legacy: true)]
            : [Trial(seed: 2212), Trial(seed: 2213, legacy: true)]
    }()

    @Test(arguments: trials)
    func fourDevicesTwoUsersRevertNothing(trial: Trial) throws {
        let seed = trial.seed
        var random = SeededRandom(seed: seed)
        let steps = trialCount(stress: 400, quick: 70)
        let dir = try TemporaryDirectory("lib-e2e-trial")
        let database = dir.file("server.sqlite")
        let serverArguments = ["--fault-control"] + (trial.legacy ? ["--legacy-protocol"] : [])
        var server = try ServerProcess(database: database, extraArguments: serverArguments)
        let port = server.port
        var devices = try [("alice-1", "alice", "title"), ("alice-2", "alice", "author"),
                           ("bob-1", "bob", "copies"), ("bob-2", "bob", "year")].map { name, user, field in
            let device = Device(name: name, user: user, field: field, lib: try LibHarness())
            try device.lib.login(user, to: server)
            return device
        }
        // "device/book" pairs a user chose a side for on a clash, and the
        // values `--mine` took back there: the only way back the check allows.
        var chosen: Set<String> = []
        var choseMine: [String: Set<Int>] = [:]
        var log: [String] = []

        func resolveAll(_ d: Int, final: Bool) throws {
            let listing = try devices[d].lib.lib("status", "--porcelain").stdout
            for line in listing.split(separator: "\n") where line.hasPrefix("write conflict") {
                let path = String(line.split(separator: " ")[5])
                // A real clash (the view offers no merge): whichever side the
                // user picks, that pick is theirs to make, and recorded.
                let view = try devices[d].lib.lib("resolve", path)
                let clash = !view.stdout.contains("sends the merge")
                let choices = clash ? ["--mine", "--theirs"] : ["--merge", "--mine", "--theirs"]
                let choice = final && !clash ? "--merge" : choices.randomElement(using: &random)!
                let result = try devices[d].lib.lib("resolve", path, choice)
                if clash {
                    let pair = "\(devices[d].name)/\(path.dropFirst(6))"
                    chosen.insert(pair)
                    if choice == "--mine", let mine = Self.mineValue(in: view.stdout, field: devices[d].field) {
                        choseMine[pair, default: []].insert(Self.rank(of: mine, for: devices[d]))
                    }
                }
                log.append("\(devices[d].name) resolve \(path) \(choice)\(clash ? " (clash)" : "")")
                #expect(result.status == 0, "\(result)\n\(log.joined(separator: "\n"))")
            }
        }

        for step in 0..<steps {
            let d = Int.random(in: 0..<devices.count, using: &random)
            let book = Self.books.randomElement(using: &random)!
            let roll = Int.random(in: 0..<100, using: &random)
            let lib = devices[d].lib
            switch roll {
            case 0..<40:
                devices[d].counter += 1
                let value = devices[d].counter
                let edit = try lib.lib("edit", "books/\(book)", Self.assignment(devices[d].field, value))
                #expect(edit.status == 0, "step \(step): \(edit)")
                if edit.status == 0 { devices[d].kept[book] = value }
                log.append("\(devices[d].name) edit \(book) \(devices[d].field)=\(value)")
            case 40..<55:
                _ = try lib.lib("push")
                log.append("\(devices[d].name) push")
            case 55..<62:
                _ = try lib.lib("push", "--wait", "3")
                log.append("\(devices[d].name) push --wait 3")
            case 62..<72:
                try resolveAll(d, final: false)
            case 72..<77:
                // Only a book with nothing waiting, so that the discard takes back this edit alone.
                guard !(try lib.lib("status", "--porcelain").stdout.contains(" books/\(book) ")) else { break }
                devices[d].counter += 1
                _ = try lib.lib("edit", "books/\(book)", Self.assignment(devices[d].field, devices[d].counter))
                let discard = try lib.lib("discard", "books/\(book)")
                #expect(discard.status == 0, "an unsent write is taken back without --force: \(discard)")
                log.append("\(devices[d].name) edit+discard \(book) \(devices[d].counter)")
            case 77..<85:
                _ = try lib.lib("logout")
                let restore = Bool.random(using: &random) ? "--restore" : "--no-restore"
                let login = try lib.lib("login", server.baseURL, "--user", devices[d].user, "--password-stdin", restore,
                                        stdin: "\(devices[d].user)-demo\n")
                #expect(login.status == 0, "\(login)")
                log.append("\(devices[d].name) logout; login \(restore)")
            case 85..<91:
                let push = try lib.start(["push"])
                usleep(UInt32.random(in: 0...150_000, using: &random))
                kill(push.processIdentifier, SIGKILL)
                push.waitUntilExit()
                log.append("\(devices[d].name) push killed")
            case 91..<97:
                let writes = trial.legacy ? "method=PUT" : "path=/v2/writes"
                let rule = ["status=503,\(writes),times=2", "drop-after-commit,times=1", "drop-before-write,times=1"]
                    .randomElement(using: &random)!
                _ = try HTTPTestClient(port: port).request("PUT", "/_test/faults", body: rule)
                log.append("fault \(rule)")
            default:
                server.stop()
                server = try ServerProcess(database: database, listen: "127.0.0.1:\(port)", extraArguments: serverArguments)
                log.append("server restarted")
            }
        }

        // The end: no faults; every device brings back what it set aside,
        // pushes and settles until nothing waits anywhere.
        _ = try HTTPTestClient(port: port).request("DELETE", "/_test/faults")
        for d in devices.indices {
            _ = try devices[d].lib.lib("logout")
            let login = try devices[d].lib.lib("login", server.baseURL, "--user", devices[d].user, "--password-stdin",
                                               "--restore", stdin: "\(devices[d].user)-demo\n")
            #expect(login.status == 0, "\(login)")
        }
        if ProcessInfo.processInfo.environment["LIB_TRIAL_DEBUG"] != nil {
            for device in devices {
                let rows = try CommandRunner.run("/usr/bin/sqlite3", [device.lib.storePath(device.lib.account(device.user, on: server)),
                    "SELECT seq, path, status, method, create_only, changes, json_extract(base_body, '$.\(device.field)'), if_match, base_etag, attempts, json_extract(theirs_body, '$.\(device.field)') FROM outbox"])
                print("DEBUG \(device.name)\n\(rows.stdout)")
            }
        }
        // One device at a time, until its outbox is empty: a chain of
        // writes whose fields clash with the account's own earlier writes
        // (restored from another sign-in) meets one conflict per write.
        var lastPush: [String: CommandResult] = [:]
        for d in devices.indices {
            for _ in 0..<20 {
                let push = try devices[d].lib.lib("push", "--wait", "10")
                lastPush[devices[d].name] = push
                if try push.status == 0 && devices[d].lib.pending() == 0 { break }
                try resolveAll(d, final: true)
            }
        }
        for device in devices {
            let status = try device.lib.lib("status", "--porcelain").stdout
            #expect(status.contains("pending 0\nconflicts 0\nrejected 0\nset-aside 0\n"),
                    "\(device.name): \(status)\n\(lastPush[device.name].map { "\($0)" } ?? "")\n\(log.suffix(40).joined(separator: "\n"))")
        }

        // The check, from the server's history alone.
        let trace = log.joined(separator: "\n")
        for book in Self.books {
            let versions = try serverHistory(server, book: book).compactMap { $0.document }
                .compactMap { try? JSONParser.parse($0) }
            for device in devices {
                let pair = "\(device.name)/\(book)"
                let ranks = versions.map { Self.rank(of: $0[device.field], for: device) }
                let back = zip(ranks, ranks.dropFirst()).filter { $0.1 < $0.0 }.map(\.1)
                #expect(back.allSatisfy { choseMine[pair, default: []].contains($0) },
                        "\(device.name)'s \(device.field) of \(book) went back to \(back) (chosen: \(choseMine[pair] ?? [])): \(ranks)\n\(trace)")
                if !chosen.contains(pair), let kept = device.kept[book] {
                    #expect(ranks.last == kept, "\(device.name)'s last kept \(device.field) of \(book) is \(kept), the server has \(ranks.last ?? -1)\n\(trace)")
                }
            }
        }
        print("intent trial \(trial.testDescription): \(steps) steps, \(log.filter { $0.contains(" edit ") }.count) edits, "
              + "\(log.filter { $0.contains("resolve") }.count) resolves, \(chosen.count) clashes decided by a side")
    }

    static func assignment(_ field: String, _ value: Int) -> String {
        switch field {
        case "copies": return "copies:=\(100 + value)"
        case "year": return "year:=\(3000 + value)"
        default: return "\(field)=v\(value)"
        }
    }

    /// The MINE cell of `field`'s clash row in resolve's view ("* FIELD BASE MINE THEIRS").
    static func mineValue(in view: String, field: String) -> JSONValue? {
        guard let row = view.split(separator: "\n").first(where: { $0.hasPrefix("* \(field) ") }) else { return nil }
        // Cells are set apart by two spaces or more (a value may hold one).
        let cells = row.components(separatedBy: "  ").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        guard cells.count == 4 else { return nil }
        return try? JSONParser.parse(cells[2])
    }

    /// A value of the device's field as the number of the edit that set it (0: not the device's).
    static func rank(of value: JSONValue?, for device: Device) -> Int {
        switch (device.field, value) {
        case ("copies", .integer(let n)?): return n > 100 ? Int(n) - 100 : 0
        case ("year", .integer(let n)?): return n > 3000 ? Int(n) - 3000 : 0
        case (_, .string(let s)?) where s.hasPrefix("v"): return Int(s.dropFirst()) ?? 0
        default: return 0
        }
    }
}

/// SplitMix64: the same sequence for the same seed, on every machine.
struct SeededRandom: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49EB_00D1_33EB
        return z ^ (z >> 31)
    }
}
