import Foundation
import Testing
import TestSupport

/// How many randomized trials a stress test runs: the issue's full count
/// under `make stress` (LIB_STRESS=1), a handful under `make test`.
func trialCount(stress: Int, quick: Int) -> Int {
    ProcessInfo.processInfo.environment["LIB_STRESS"] == "1" ? stress : quick
}

extension LibHarness {
    /// Puts the server's current copy of each document in lib's cache with
    /// `lib get` (when it fails, the copy is fetched over HTTP with the
    /// user's token and stored directly, so that a broken `get` shows up in
    /// its own tests rather than here).
    func cache(_ paths: [String], from server: ServerProcess, as user: String) throws {
        for path in paths {
            if try lib("get", path).status == 0 { continue }
            let token = try keyringToken(server: server, user: user)
            let answer = try HTTPTestClient(port: server.port).request("GET", "/v1/\(path)", headers: [("Authorization", "Bearer \(token)")])
            #expect(answer.status == 200)
            let etag = answer.header("ETag") ?? ""
            let sql = "INSERT OR REPLACE INTO documents (path, body, etag, fetched_at, validated_at) VALUES ('\(path)', '\(answer.text.replacingOccurrences(of: "'", with: "''"))', '\(etag.replacingOccurrences(of: "'", with: "''"))', strftime('%s','now'), strftime('%s','now'))"
            let stored = try CommandRunner.run("/usr/bin/sqlite3", [storePath(account(user, on: server)), sql])
            #expect(stored.status == 0, "\(stored)")
        }
    }

    /// `pending N` from `lib status --porcelain`.
    func pending() throws -> Int { try porcelain("pending") }
    func conflicts() throws -> Int { try porcelain("conflicts") }

    private func porcelain(_ key: String) throws -> Int {
        let lines = try lib("status", "--porcelain").stdout.split(separator: "\n")
        return lines.first { $0.hasPrefix(key + " ") }.flatMap { Int($0.split(separator: " ")[1]) } ?? -1
    }

    /// Starts `lib ARGS...` without waiting for it (output discarded).
    func start(_ arguments: [String]) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: BuiltProducts.path("lib"))
        process.arguments = arguments
        process.environment = environment
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        return process
    }

    /// `PRAGMA integrity_check` of the account's store.
    func integrityCheck(_ account: String) throws -> String {
        try CommandRunner.run("/usr/bin/sqlite3", [storePath(account), "PRAGMA integrity_check"]).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

/// The books written by one user, in the order the server applied the writes.
func serverWriteOrder(_ server: ServerProcess, user: String) throws -> [String] {
    let id = try serverUserID(server, user)
    return try CommandRunner.run("/usr/bin/sqlite3", [server.databasePath,
        "SELECT book_id FROM history WHERE updated_by = '\(id)' ORDER BY rowid"]).stdout
        .split(separator: "\n").map(String.init)
}

/// An executable shell script, for EDITOR.
func writeScript(_ path: String, _ body: String) throws {
    try ("#!/bin/sh\n" + body).write(toFile: path, atomically: true, encoding: .utf8)
    chmod(path, 0o755)
}

/// Seconds on a clock that never jumps.
func monotonicNow() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}
