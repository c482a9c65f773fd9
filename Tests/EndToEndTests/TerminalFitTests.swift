import Foundation
import Testing
import TestSupport

/// Every line fits its terminal, on a real pseudo-terminal at 40 and 80
/// columns (issue 37): the first pull's progress line leaves no row behind
/// (each redraw is narrower than the terminal), a search table with the
/// 26-character ids of `lib new` splits no word, a hint's command is never
/// broken; and LC_ALL=C with TERM=dumb gets neither an escape sequence nor
/// a non-ASCII byte in lib's own words.
@Suite struct TerminalFitTests {
    /// Each state of the one rewritten line: the text between `\r ESC[K` redraws.
    func redraws(_ output: String) -> [String] {
        output.components(separatedBy: "\r\u{1B}[K").map { $0.components(separatedBy: "\n")[0].replacingOccurrences(of: "\r", with: "") }
            .filter { !$0.isEmpty }
    }

    func lines(_ output: String) -> [Substring] {
        output.replacingOccurrences(of: "\r", with: "").split(separator: "\n")
    }

    @Test(arguments: [40, 80])
    func theFirstPullsProgressLeavesNoRowBehind(columns: Int) throws {
        let logged = try PullSearchTests.LoggedServer(extraBooks: 3_000)
        let alice = try LibHarness()
        try alice.login("alice", to: logged.server)
        let pull = try alice.onTerminal("pull", columns: columns, environment: ["NO_COLOR": "1"])
        #expect(pull.status == 0, "\(pull)")
        let shown = redraws(pull.stdout).filter { $0.contains("3,020)") }
        #expect(shown.count >= 3, "a line for each page: \(pull.stdout.debugDescription)")
        for line in shown {
            #expect(line.count < columns, "\(line.count) columns: '\(line)'")
            // At 40 columns the server's name goes first; "Listing books: "
            // still fits while a page came too soon for a rate (under 50 ms).
            #expect(line.hasPrefix("Listing books from") == (columns >= 60), "'\(line)'")
        }
        // One number format in the run: the summary's count is grouped as the progress's.
        #expect(pull.stdout.contains("listed 3,020 books."), "\(pull)")
    }

    @Test(arguments: [40, 80])
    func aSearchTableWithNewIdsSplitsNoWord(columns: Int) throws {
        let server = try startDemoServer()
        let alice = try LibHarness()
        try alice.login("alice", to: server)
        let titles = ["Children of the River Winter", "The River Between Two Unremarkable Houses", "River"]
        var ids: [String] = []
        for title in titles {
            let made = try alice.lib("new", "books", "title=\(title)", "author=Ngũgĩ wa Thiong'o", "year:=1965")
            #expect(made.status == 0, "\(made)")
            ids.append(String(made.stdout.trimmingCharacters(in: .newlines).dropFirst("books/".count)))
        }
        #expect(ids.allSatisfy { $0.count == 26 }, "\(ids)")
        let table = try alice.onTerminal("search river", columns: columns, environment: ["NO_COLOR": "1", "PAGER": "cat"])
        #expect(table.status == 0, "\(table)")
        let known = Set((titles + ["Ngũgĩ wa Thiong'o", "1965", "ID TITLE AUTHOR YEAR", "changed, not yet pushed",
                                   "Only the books cached on this device were searched: run `lib pull` for the whole library."])
            .flatMap { $0.split(separator: " ").map(String.init) } + ids)
        for line in lines(table.stdout) {
            #expect(line.count <= columns, "\(line.count) columns: '\(line)'")
            for word in line.split(separator: " ") {
                let whole = word.hasSuffix("…") ? String(word.dropLast()) : String(word)
                #expect(known.contains(whole), "'\(word)' is no whole word, in '\(line)'")
            }
        }
        for id in ids { #expect(table.stdout.contains(id), "\(id) whole") }
    }

    @Test(arguments: [40, 80])
    func aWrappedHintKeepsItsCommandWhole(columns: Int) throws {
        let server = try startDemoServer()
        let device = try LibHarness()
        try device.login("bob", to: server)
        try device.login("alice", to: server)
        let bob = device.account("bob", on: server)
        let search = try device.onTerminal("-A \(bob) search pride", columns: columns, environment: ["NO_COLOR": "1", "PAGER": "cat"])
        let command = "`lib -A \(bob) pull`"
        #expect(lines(search.stdout).contains { $0.contains(command) }, "\(search.stdout.debugDescription)")
        for line in lines(search.stdout) { #expect(line.count < columns, "\(line.count) columns: '\(line)'") }
        let words = search.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(words.contains("Only the books cached on this device were searched: run \(command) for the whole library."), "\(words)")
    }

    /// lib's own words in ASCII (→ and — too) with no escape sequence; a
    /// UTF-8 locale on another terminal gets them, so the check can fail.
    @Test func aCLocaleOnADumbTerminalGetsPlainASCII() throws {
        let server = try startDemoServer()
        let lib = try LibHarness()
        try lib.login("alice", to: server)
        #expect(try lib.lib("get", "books").status == 0)
        #expect(try lib.lib("edit", "books/b-7", "copies:=4").status == 0)
        let plain = ["LC_ALL": "C", "TERM": "dumb", "NO_COLOR": "", "PAGER": "cat"]
        let diff = try lib.onTerminal("diff", environment: plain)
        #expect(diff.stdout.contains(" -> 4"), "\(diff.stdout.debugDescription)")
        let fancy = try lib.onTerminal("diff", environment: ["LC_ALL": "C.UTF-8", "TERM": "xterm-256color", "NO_COLOR": "", "PAGER": "cat"])
        #expect(fancy.stdout.contains("→") && fancy.stdout.contains("\u{1B}["), "\(fancy.stdout.debugDescription)")
        // The server's text is shown as before (a title in UTF-8 stays).
        let table = try lib.onTerminal("get books --offline", environment: plain)
        #expect(table.stdout.contains("García Márquez"), "\(table.stdout.debugDescription)")
        server.stop()
        let push = try lib.onTerminal("push", environment: plain)
        #expect(push.status == 75 && push.stdout.contains("connection refused - the server may be down"), "\(push.stdout.debugDescription)")
        let ownWords = table.stdout.replacingOccurrences(of: "García Márquez", with: "").replacingOccurrences(of: "Brontë", with: "")
        for output in [diff.stdout, push.stdout, ownWords] {
            #expect(!output.contains("\u{1B}"), "\(output.debugDescription)")
            #expect(output.utf8.allSatisfy { $0 < 0x80 }, "\(output.debugDescription)")
        }
    }

    /// At 200 columns the table has room for copies and tags; at 80 it
    /// keeps to id, title, author and year, as before.
    @Test func aWideTerminalShowsCopiesAndTags() throws {
        let server = try startDemoServer()
        let lib = try LibHarness()
        try lib.login("alice", to: server)
        #expect(try lib.lib("get", "books").status == 0)
        let wide = try lib.onTerminal("get books --offline", columns: 200, environment: ["NO_COLOR": "1", "PAGER": "cat"])
        let header = lines(wide.stdout).first { $0.contains("TITLE") } ?? ""
        #expect(header.contains("COPIES") && header.contains("TAGS"), "\(wide.stdout)")
        #expect(wide.stdout.contains("magical realism"), "the tags of b-5: \(wide.stdout)")
        for line in lines(wide.stdout) { #expect(line.count <= 200) }
        let narrow = try lib.onTerminal("get books --offline", columns: 80, environment: ["NO_COLOR": "1", "PAGER": "cat"])
        let narrowHeader = lines(narrow.stdout).first { $0.contains("TITLE") } ?? ""
        #expect(narrowHeader.contains("AUTHOR") && !narrowHeader.contains("COPIES") && !narrowHeader.contains("TAGS"), "\(narrow.stdout)")
    }
}
