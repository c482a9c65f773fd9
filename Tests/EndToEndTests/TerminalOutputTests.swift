import Foundation
import Testing
import TestSupport

/// Colour, width and paging as a terminal sees them: through a real
/// pseudo-terminal made by script(1) from util-linux (issue 12).
@Suite struct TerminalOutputTests {
    @Test func colourOnATerminalOnlyAndNeverWithNoColor() throws {
        let server = try startDemoServer()
        let lib = try LibHarness()
        try lib.login("alice", to: server)
        #expect(try lib.lib("get", "books").status == 0)
        #expect(try lib.lib("edit", "books/b-7", "title=Dune Messiah").status == 0)

        let terminal = try lib.onTerminal("get books --offline", environment: ["PAGER": "cat"])
        #expect(terminal.status == 0, "\(terminal)")
        #expect(terminal.stdout.contains("\u{1B}[1mID\u{1B}[0m"), "a bold header on a terminal: \(terminal)")
        #expect(terminal.stdout.contains("\u{1B}[33mb-7\u{1B}[0m"), "the changed book in yellow: \(terminal)")
        let status = try lib.onTerminal("status")
        #expect(status.stdout.contains("\u{1B}[33m1 write pending\u{1B}[0m"), "status on a terminal: \(status)")
        let plainStatus = try lib.onTerminal("status", environment: ["NO_COLOR": "1"])
        #expect(plainStatus.stdout.contains("1 write pending: run") && !plainStatus.stdout.contains("\u{1B}["), "\(plainStatus)")
        let pipedStatus = try lib.lib("status")
        #expect(pipedStatus.stdout.contains("1 write pending") && !pipedStatus.stdout.contains("\u{1B}["), "\(pipedStatus)")
        // Errors too: the `lib:` prefix in red.
        let failing = try lib.onTerminal("get books/nope --offline")
        #expect(failing.stdout.contains("\u{1B}[31mlib:\u{1B}[0m"), "\(failing)")

        let noColor = try lib.onTerminal("get books --offline", environment: ["PAGER": "cat", "NO_COLOR": "1"])
        #expect(noColor.status == 0 && noColor.stdout.contains("ID"), "\(noColor)")
        #expect(!noColor.stdout.contains("\u{1B}["), "NO_COLOR: \(noColor)")
        let flag = try lib.onTerminal("get books --offline --no-color", environment: ["PAGER": "cat"])
        #expect(flag.status == 0 && !flag.stdout.contains("\u{1B}["), "--no-color: \(flag)")

        // In a pipe: JSON, and no escapes anywhere.
        let piped = try lib.lib("get", "books", "--offline")
        #expect(piped.status == 0 && piped.stdout.hasPrefix("{"), "\(piped)")
        #expect(!piped.stdout.contains("\u{1B}[") && !piped.stderr.contains("\u{1B}["), "\(piped)")
        let pipedError = try lib.lib("get", "books/nope", "--offline")
        #expect(pipedError.stderr.hasPrefix("lib: "), "\(pipedError)")
    }

    @Test func tablesFitTheTerminalAndSortIdsNaturally() throws {
        let server = try startDemoServer()
        let lib = try LibHarness()
        try lib.login("alice", to: server)
        #expect(try lib.lib("get", "books").status == 0)

        let narrow = try lib.onTerminal("get books --offline", columns: 50, environment: ["PAGER": "cat", "NO_COLOR": "1"])
        #expect(narrow.status == 0, "\(narrow)")
        // The age label arrives first, on standard error; the table follows.
        let lines = narrow.stdout.replacingOccurrences(of: "\r", with: "").split(separator: "\n")
            .drop { !$0.hasPrefix("ID") }
        for line in lines { #expect(line.count <= 50, "fits 50 columns: '\(line)'") }
        // Wrapped, not cut: a long title goes on over the row's next lines (issue 24).
        #expect(lines.count > 21 && !narrow.stdout.contains("…"), "\(narrow)")
        let ids = lines.dropFirst().map { String($0.prefix { $0 != " " }) }.filter { !$0.isEmpty }
        #expect(ids == (1...20).map { "b-\($0)" }, "natural order: \(ids)")
    }

    @Test func longOutputGoesThroughThePagerOnATerminalOnly() throws {
        let server = try startDemoServer()
        let lib = try LibHarness()
        try lib.login("alice", to: server)
        #expect(try lib.lib("get", "books").status == 0)
        let pager = ["PAGER": "sed s/^/paged:/", "NO_COLOR": "1"]
        let terminal = try lib.onTerminal("get books --offline", environment: pager)
        #expect(terminal.stdout.contains("paged:ID"), "\(terminal)")
        let piped = try lib.lib(["get", "books", "--offline"], environment: pager)
        #expect(!piped.stdout.contains("paged:"), "\(piped)")
    }
}
