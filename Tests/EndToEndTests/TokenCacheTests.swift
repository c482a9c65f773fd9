import Foundation
import Testing
import TestSupport

/// The kernel keyring's cache of tokens in front of the Secret Service, and
/// the headless opt-in (issue 35). Real keyrings throughout: the test run's
/// own kernel session keyring (scripts/with-test-session.sh), the user's
/// persistent keyring, a real gnome-keyring on a private bus, lib-server.
@Suite struct TokenCacheTests {
    /// `lib-keyring-check ARGS...`: the kernel keyring as a test sees it.
    private func check(_ arguments: String..., environment: [String: String] = ProcessInfo.processInfo.environment) throws -> CommandResult {
        try CommandRunner.run(BuiltProducts.path("lib-keyring-check"), arguments, environment: environment)
    }

    /// The id of the account's cached key in the session keyring, or nil.
    private func cachedKey(_ server: ServerProcess, _ user: String) throws -> String? {
        let found = try check("cached", server.baseURL, try serverUserID(server, user))
        return found.status == 0 ? found.stdout.trimmingCharacters(in: .newlines) : nil
    }

    /// The key's line in /proc/keys: id, flags, usage, timeout, permissions, uid, gid, type, description.
    private func procKeysLine(_ key: String) throws -> [String] {
        let id = String(format: "%08x", UInt32(key) ?? 0)
        let all = try procKeys()
        let line = all.split(separator: "\n").first { $0.hasPrefix(id + " ") }
        return line.map { $0.split(separator: " ", omittingEmptySubsequences: true).map(String.init) } ?? []
    }

    /// /proc/keys, read to its end (Foundation's file reading stops early on procfs).
    private func procKeys() throws -> String {
        let read = try CommandRunner.run("/bin/cat", ["/proc/keys"])
        return read.stdout
    }

    @Test func aWarmGetAndPushReadTheCacheAndNeitherLoadLibsecretNorTouchTheBus() throws {
        let server = try startDemoServer()
        let lib = try LibHarness()
        try lib.login("alice", to: server)
        let bus = ProcessInfo.processInfo.environment["DBUS_SESSION_BUS_ADDRESS"] ?? ""
        let busPath = bus.replacingOccurrences(of: "unix:path=", with: "").split(separator: ",").first.map(String.init) ?? ""
        #expect(!busPath.isEmpty, "the test session names its bus: \(bus)")

        func traced(_ arguments: [String], launcher: [String] = []) throws -> (CommandResult, String) {
            let log = lib.home.file("strace.txt")
            let result = try CommandRunner.run("/usr/bin/strace", ["-f", "-qq", "-e", "trace=execve,openat,connect", "-s", "256", "-o", log]
                                               + launcher + [BuiltProducts.path("lib")] + arguments, environment: lib.environment)
            let text = try String(contentsOfFile: log, encoding: .utf8)
            try FileManager.default.removeItem(atPath: log)
            return (result, text)
        }
        func touchesKeyring(_ trace: String) -> Bool {
            trace.contains("libsecret") || trace.contains("libglib") || trace.contains("libgio") || trace.contains(busPath)
        }

        let (get, getTrace) = try traced(["get", "books/b-7"])
        #expect(get.status == 0, "\(get)")
        #expect(getTrace.contains("lib-online"), "the trace follows lib into lib-online: \(getTrace.prefix(2000))")
        #expect(getTrace.contains("htons(\(server.port))"), "and sees it connect to the server")
        #expect(!touchesKeyring(getTrace), "a warm get loads no libsecret or GLib and never connects to \(busPath)")

        #expect(try lib.lib("edit", "books/b-7", "copies:=17").status == 0)
        let (push, pushTrace) = try traced(["push"])
        #expect(push.status == 0, "\(push)")
        #expect(pushTrace.contains("htons(\(server.port))"))
        #expect(!touchesKeyring(pushTrace), "a warm push neither")
        #expect(try serverHistory(server, book: "b-7").last?.document?.contains("\"copies\":17") == true)

        // The same get in a session without the cached copy does load them:
        // the check above can fail.
        let (cold, coldTrace) = try traced(["get", "books/b-7"], launcher: [BuiltProducts.path("lib-keyring-check"), "session"])
        #expect(cold.status == 0, "\(cold)")
        #expect(coldTrace.contains("libsecret-1.so") && coldTrace.contains(busPath), "\(coldTrace.suffix(3000))")
    }

    @Test func theCachedKeyIsNamedAfterTheIdentityOnlyThisUidPossessesItAndItTimesOut() throws {
        let server = try startDemoServer()
        let lib = try LibHarness()
        try lib.login("alice", to: server)
        let key = try #require(try cachedKey(server, "alice"), "login leaves the token cached")
        let line = try procKeysLine(key)
        // id flags usage timeout perm uid gid type description
        try #require(line.count >= 9, "\(line)")
        #expect(line[4] == "3f010000", "possessor: all; this uid: view; others: nothing: \(line)")
        #expect(line[5] == "\(getuid())" && line[7] == "user", "\(line)")
        #expect(line[3].hasSuffix("m") && ["15m", "14m"].contains(line[3]), "a 15 minute time-out: \(line)")
        #expect(line[8] == "lib:token:\(server.baseURL)#\(try serverUserID(server, "alice")):", "the identity, not the name: \(line)")

        #expect(try check("read-key", key).stdout == "read \(try #require(try cachedReadLength(key))) bytes\n")
        // Another user cannot read it...
        let nobody = try check("read-key", key, "--as-uid", "65534")
        #expect(nobody.status == 1 && nobody.stdout == "refused: EACCES\n", "\(nobody)")
        // ...nor this user from a session that does not possess it (a key
        // request finds nothing there either).
        let elsewhere = try check("session", BuiltProducts.path("lib-keyring-check"), "read-key", key)
        #expect(elsewhere.status == 1 && elsewhere.stdout == "refused: EACCES\n", "\(elsewhere)")
        let lookup = try check("session", BuiltProducts.path("lib-keyring-check"), "cached", server.baseURL, try serverUserID(server, "alice"))
        #expect(lookup.status == 1 && lookup.stdout == "none\n", "\(lookup)")
    }

    private func cachedReadLength(_ key: String) throws -> Int? {
        let read = try check("read-key", key)
        return Int(read.stdout.split(separator: " ").dropFirst().first ?? "")
    }

    @Test func logoutMakesTheCachedTokenUnusableAtOnce() throws {
        let server = try startDemoServer()
        let lib = try LibHarness()
        try lib.login("alice", to: server)
        #expect(try lib.lib("get", "books/b-7").status == 0)
        let key = try #require(try cachedKey(server, "alice"))
        let token = try keyringToken(server: server, user: "alice")

        let logout = try lib.lib("logout")
        #expect(logout.status == 0, "\(logout)")
        #expect(try cachedKey(server, "alice") == nil, "no cached copy is left")
        let read = try check("read-key", key)
        #expect(read.status == 1 && read.stdout.hasPrefix("refused: "), "the old key is gone: \(read)")
        let get = try lib.lib("get", "books/b-7")
        #expect(get.status == 4 && get.stderr.contains("not signed in"), "\(get)")
        let client = try HTTPTestClient(port: server.port)
        #expect(try client.request("GET", "/v1/me", headers: [("Authorization", "Bearer \(token)")]).status == 401,
                "and the server refuses the old token")
    }

    @Test func aRefusedTokenLeavesTheCacheAtOnce() throws {
        let server = try startDemoServer()
        let lib = try LibHarness()
        try lib.login("alice", to: server)
        #expect(try cachedKey(server, "alice") != nil)
        // The session ends on the server behind lib's back.
        let token = try keyringToken(server: server, user: "alice")
        let client = try HTTPTestClient(port: server.port)
        #expect(try client.request("DELETE", "/v1/sessions/current", headers: [("Authorization", "Bearer \(token)")]).status == 204)

        let get = try lib.lib("get", "--fresh", "books/b-7")
        #expect(get.status == 4, "\(get)")
        #expect(!get.stderr.contains(token), "\(get)")
        #expect(try cachedKey(server, "alice") == nil, "the 401 removed the cached copy")
    }

    @Test func aNewLoginReplacesTheCopyCachedInAnotherSession() throws {
        let server = try startDemoServer()
        let lib = try LibHarness()
        try lib.login("alice", to: server)
        #expect(try lib.lib("get", "books/b-7").status == 0)
        let stale = try #require(try cachedKey(server, "alice"))

        // In another login session: sign out (the old token is revoked) and in again.
        #expect(try lib.libInAnotherSession(["logout"]).status == 0)
        let login = try lib.libInAnotherSession(["login", server.baseURL, "--user", "alice", "--password-stdin"], stdin: "alice-demo\n")
        #expect(login.status == 0, "\(login)")
        #expect(try cachedKey(server, "alice") == stale, "this session still holds its copy of the old token")

        // This session's copy is from before that login: never used (the
        // old token would be refused, 401, exit 4); the new one is read.
        let get = try lib.lib("get", "--fresh", "books/b-7")
        #expect(get.status == 0 && get.stderr.isEmpty, "\(get)")
        let fresh = try #require(try cachedKey(server, "alice"))
        let doctor = try lib.lib("doctor")
        #expect(doctor.stdout.contains("ok       token (\(lib.account("alice", on: server))): in the kernel keyring's cache"), "\(doctor)")
        _ = fresh
    }

    @Test func twoAccountsOnOneServerAndOneAccountOnTwoServersNeverShareAKey() throws {
        let first = try startDemoServer()
        let second = try startDemoServer()
        let lib = try LibHarness()
        try lib.login("alice", to: first)
        try lib.login("bob", to: first)
        try lib.login("alice", to: second)
        let keys = [try cachedKey(first, "alice"), try cachedKey(first, "bob"), try cachedKey(second, "alice")]
        #expect(keys.allSatisfy { $0 != nil } && Set(keys).count == 3, "one key per identity: \(keys)")

        let aliceFirst = lib.account("alice", on: first), bob = lib.account("bob", on: first), aliceSecond = lib.account("alice", on: second)
        #expect(try lib.lib("-A", aliceFirst, "edit", "books/b-1", "copies:=11", "--push").status == 0)
        #expect(try lib.lib("-A", bob, "edit", "books/b-2", "copies:=22", "--push").status == 0)
        #expect(try lib.lib("-A", aliceSecond, "edit", "books/b-3", "copies:=33", "--push").status == 0)
        // Each write went with its own account's token.
        #expect(try serverHistory(first, book: "b-1").last?.updatedBy == serverUserID(first, "alice"))
        #expect(try serverHistory(first, book: "b-2").last?.updatedBy == serverUserID(first, "bob"))
        #expect(try serverHistory(second, book: "b-3").last?.updatedBy == serverUserID(second, "alice"))

        // Signing bob out removes bob's copy only.
        #expect(try lib.lib("logout", bob).status == 0)
        #expect(try cachedKey(first, "bob") == nil)
        #expect(try cachedKey(first, "alice") == keys[0] && cachedKey(second, "alice") == keys[2])
    }

    /// A session of its own (bus, gnome-keyring) whose keyring daemon is
    /// stopped with SIGSTOP: a warm command does not notice; a cold one says
    /// so within the keyring's 0.9 s.
    @Test func aStoppedSecretServiceIsNamedAndAWarmCacheIsUsedMeanwhile() throws {
        let server = try startDemoServer()
        let lib = try LibHarness()
        var env = lib.environment
        env["LIB_IN_TEST_SESSION"] = nil
        let script = """
            lib=$1 url=$2 check=$3
            printf 'alice-demo\\n' | "$lib" login "$url" --user alice --password-stdin >/dev/null || exit 90
            pid=$(dbus-send --session --print-reply --dest=org.freedesktop.DBus / \\
                org.freedesktop.DBus.GetConnectionUnixProcessID string:org.freedesktop.secrets | awk '/uint32/ {print $2}')
            [ -n "$pid" ] || exit 91
            trap 'kill -CONT $pid' EXIT
            kill -STOP "$pid"
            "$lib" get books/b-7 >/dev/null
            echo "warm $?"
            start=$(date +%s%N)
            "$check" session "$lib" get books/b-7 2>&1 >/dev/null
            echo "cold $? in $(( ($(date +%s%N) - start) / 1000000 )) ms"
            """
        let result = try CommandRunner.run(repositoryRoot() + "/scripts/with-test-session.sh",
            ["/bin/bash", "-c", script, "stopped", BuiltProducts.path("lib"), server.baseURL, BuiltProducts.path("lib-keyring-check")],
            environment: env, timeout: 60)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("warm 0\n"), "\(result)")
        #expect(result.stdout.contains("The Secret Service keyring (org.freedesktop.secrets on the session bus) did not answer within 0.9 s."), "\(result)")
        #expect(result.stdout.contains("gnome-keyring-daemon --replace --unlock"), "what to do: \(result)")
        #expect(result.stdout.contains("\ncold 4 in "), "\(result)")
        print("issue 35: a cold get with the Secret Service stopped: \(result.stdout.split(separator: "\n").last ?? "")")
    }

    /// cron: `env -i` with only HOME and PATH, another session keyring, and
    /// the login session's bus gone. With `--headless` the push works (the
    /// persistent keyring's copy); without it lib fails closed (exit 4).
    @Test func cronPushesWithTheHeadlessOptInAndFailsClosedWithout() throws {
        let server = try startDemoServer()
        let lib = try LibHarness()
        var env = lib.environment
        env["LIB_IN_TEST_SESSION"] = nil
        env["LIB_HOME"] = nil
        let script = """
            lib=$1 url=$2 check=$3
            export HOME=$4
            printf 'alice-demo\\n' | "$lib" login "$url" --user alice --password-stdin --headless >/dev/null || exit 90
            printf 'bob-demo\\n' | "$lib" login "$url" --user bob --password-stdin >/dev/null || exit 91
            "$lib" -A alice edit books/b-3 copies:=31 >/dev/null || exit 92
            "$lib" -A bob edit books/b-4 copies:=41 >/dev/null || exit 93
            "$lib" -A alice doctor | grep '^ok       token'
            bus=$(dbus-send --session --print-reply --dest=org.freedesktop.DBus / \\
                org.freedesktop.DBus.GetConnectionUnixProcessID string:org.freedesktop.DBus | awk '/uint32/ {print $2}')
            [ -n "$bus" ] || exit 94
            kill -KILL "$bus"  # (TERM may be blocked: Foundation's Process leaves it so)
            while kill -0 "$bus" 2>/dev/null; do sleep 0.05; done
            echo "--- cron"
            env -i HOME="$HOME" PATH="$PATH" "$check" session "$lib" -A alice push --wait 60
            echo "alice $?"
            env -i HOME="$HOME" PATH="$PATH" "$check" session "$lib" -A bob push --wait 60
            echo "bob $?"
            env -i HOME="$HOME" PATH="$PATH" "$check" session "$lib" -A alice doctor | grep '^ok       token'
            # push --watch as a systemd user service would run it after logout.
            env -i HOME="$HOME" PATH="$PATH" "$check" session "$lib" -A alice push --watch > "$HOME/watch.out" 2>&1 &
            watcher=$!
            env -i HOME="$HOME" PATH="$PATH" "$lib" -A alice edit books/b-5 copies:=51 >/dev/null || exit 95
            for _ in $(seq 1 300); do
                sqlite3 "$5" "SELECT document FROM history WHERE book_id = 'b-5' ORDER BY version DESC LIMIT 1" | grep -q '"copies":51' && break
                sleep 0.1
            done
            kill -INT "$watcher"; wait "$watcher"
            echo "watch $?"
            # Signing out without a keyring fails (exit 4), but leaves no copy behind.
            env -i HOME="$HOME" PATH="$PATH" "$lib" -A alice logout >/dev/null 2>&1
            echo "logout $?"
            """
        // Whatever happens, no copy stays in the uid's persistent keyring.
        defer { _ = try? check("persistent", server.baseURL, try serverUserID(server, "alice"), "--remove") }
        let result = try CommandRunner.run(repositoryRoot() + "/scripts/with-test-session.sh",
            ["/bin/bash", "-c", script, "cron", BuiltProducts.path("lib"), server.baseURL, BuiltProducts.path("lib-keyring-check"), lib.home.path,
             server.databasePath],
            environment: env, timeout: 120)
        let alice = lib.account("alice", on: server), bob = lib.account("bob", on: server)
        #expect(result.stdout.contains("ok       token (\(alice)): in the kernel keyring's cache (session keyring), 1"), "\(result)")
        #expect(result.stdout.contains(" left; headless: a copy in the persistent keyring\n"), "\(result)")
        let cron = try #require(result.stdout.components(separatedBy: "--- cron\n").last)
        #expect(cron.contains("alice 0\n"), "\(result)")
        #expect(try serverHistory(server, book: "b-3").last?.document?.contains("\"copies\":31") == true, "alice's write was pushed")
        #expect(cron.contains("bob 4\n"), "\(result)")
        #expect(result.stderr.contains("lib: \(bob): "), "the account is named: \(result)")
        #expect(result.stderr.contains("no D-Bus session bus") && result.stderr.contains("loginctl enable-linger"), "and how to fix it: \(result)")
        #expect(try serverHistory(server, book: "b-4").last?.document?.contains("\"copies\":41") != true, "bob's write was not")
        #expect(cron.contains("ok       token (\(alice)): in the persistent keyring (headless; the kernel keeps it "), "\(result)")
        #expect(try serverHistory(server, book: "b-5").last?.document?.contains("\"copies\":51") == true,
                "push --watch pushed without a bus: \(result)\n\((try? String(contentsOfFile: lib.home.path + "/watch.out", encoding: .utf8)) ?? "")")
        #expect(cron.contains("watch 0\n"), "stopped by SIGINT, it exits 0: \(result)")
        #expect(cron.contains("logout 4\n"), "\(result)")
        let persistent = try check("persistent", server.baseURL, try serverUserID(server, "alice"))
        #expect(persistent.status == 1, "logout removed the persistent keyring's copy: \(persistent)")
    }

    /// The token never shows: not in a file, argv, the environment, the
    /// kernel's list of keys, `-v`/`-vv`, doctor, or an error message.
    @Test func theTokenCanaryHoldsWithTheCache() throws {
        let server = try startDemoServer()
        let lib = try LibHarness()
        let log = lib.home.file("execve.txt")
        let login = try CommandRunner.run("/usr/bin/strace", ["-f", "-qq", "-v", "-e", "trace=execve", "-s", "4096", "-o", log,
                                                              BuiltProducts.path("lib"), "login", server.baseURL, "--user", "alice",
                                                              "--password-stdin", "--headless"],
                                          environment: lib.environment, stdin: "alice-demo\n")
        #expect(login.status == 0, "\(login)")
        defer { _ = try? check("persistent", server.baseURL, try serverUserID(server, "alice"), "--remove") }
        let token = try keyringToken(server: server, user: "alice")
        #expect(token.count >= 16)
        var outputs = [login.stdout, login.stderr]
        for arguments in [["-v", "get", "books/b-7"], ["-vv", "get", "books/b-7"], ["doctor"], ["--json", "doctor"]] {
            let run = try CommandRunner.run("/usr/bin/strace", ["-f", "-qq", "-v", "-e", "trace=execve", "-s", "4096", "-o", log + "2",
                                                                BuiltProducts.path("lib")] + arguments, environment: lib.environment)
            outputs += [run.stdout, run.stderr, try String(contentsOfFile: log + "2", encoding: .utf8)]
            let cold = try lib.libInAnotherSession(arguments)
            outputs += [cold.stdout, cold.stderr]
        }
        outputs.append(try String(contentsOfFile: log, encoding: .utf8))
        outputs.append(try procKeys())
        // The server ends the session: the 401's message.
        let client = try HTTPTestClient(port: server.port)
        #expect(try client.request("DELETE", "/v1/sessions/current", headers: [("Authorization", "Bearer \(token)")]).status == 204)
        let refused = try lib.lib("-v", "get", "--fresh", "books/b-7")
        #expect(refused.status == 4, "\(refused)")
        outputs += [refused.stdout, refused.stderr]
        for (index, text) in outputs.enumerated() {
            #expect(!text.contains(token), "output \(index) holds the token: \(text.prefix(500))")
        }
        let enumerator = FileManager.default.enumerator(atPath: lib.home.path)
        while let file = enumerator?.nextObject() as? String {
            let path = lib.home.path + "/" + file
            guard let data = FileManager.default.contents(atPath: path) else { continue }
            #expect(data.range(of: Data(token.utf8)) == nil, "\(file) holds the token")
        }
        _ = try lib.lib("logout")
        #expect(try check("persistent", server.baseURL, try serverUserID(server, "alice")).status == 1)
    }
}
