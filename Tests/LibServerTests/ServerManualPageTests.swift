import Foundation
@testable import LibServer
import Testing
import TestSupport

/// `man/lib-server.1` is generated from the flags registry (`lib-server
/// __man`, written by `make generate`): the committed page must be what the
/// registry makes, and must render and name every flag `--help` shows.
@Suite struct ServerManualPageTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let pagePath = root.appendingPathComponent("man/lib-server.1").path
    static let mandoc = "/usr/bin/mandoc"

    @Test func theCommittedPageIsTheOneTheFlagsMake() throws {
        let committed = try String(contentsOfFile: Self.pagePath, encoding: .utf8)
        #expect(committed == ServerManualPage.render(), "man/lib-server.1 is stale: run 'make generate'")
    }

    @Test func theBinaryPrintsThePage() throws {
        let printed = try CommandRunner.run(BuiltProducts.path("lib-server"), ["__man"])
        #expect(printed.status == 0 && printed.stdout == ServerManualPage.render(), "\(printed.stderr)")
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: mandoc), "needs mandoc"))
    func thePagePassesMandocLint() throws {
        let lint = try CommandRunner.run(Self.mandoc, ["-Tlint", "-Wall", Self.pagePath])
        #expect(lint.status == 0 && lint.stdout.isEmpty && lint.stderr.isEmpty, "\(lint)")
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/groff"), "needs groff"))
    func thePageRendersWithGroffWithoutWarnings() throws {
        let result = try CommandRunner.run("/usr/bin/groff", ["-ww", "-man", "-Tutf8", "-z", Self.pagePath])
        #expect(result.status == 0 && result.stderr.isEmpty, "\(result)")
    }

    /// Rendered as a reader sees it, the page names each flag `lib-server
    /// --help` prints, in the section of the command it belongs to.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: mandoc), "needs mandoc"))
    func theRenderedPageNamesEveryFlagOfHelp() throws {
        let help = try CommandRunner.run(BuiltProducts.path("lib-server"), ["--help"])
        #expect(help.status == 0)
        // A flag: a word that starts with - or --, at the start or after a space.
        let flags = Set(help.stdout.matches(of: /(?:^|[\s\[|])(--?[a-z][a-z-]*)/.anchorsMatchLineEndings()).map { String($0.output.1) })
        #expect(flags.isSuperset(of: ["--db", "--listen", "--demo", "--role", "--verbose", "-v", "--fault", "--help", "-h", "--version"]),
                "\(flags.sorted())")
        let rendered = try CommandRunner.run(Self.mandoc, ["-Tascii", Self.pagePath])
        #expect(rendered.status == 0 && rendered.stderr.isEmpty, "\(rendered)")
        // -Tascii prints bold as "c\bc" and underline as "_\bc": keep the letters.
        let text = rendered.stdout.replacing(/.\x08/, with: "")
        let options = Self.section(text, "OPTIONS", until: "ADDING A USER")
        let userAdd = Self.section(text, "ADDING A USER", until: "ENVIRONMENT")
        for flag in flags.sorted() {
            #expect(text.contains(flag), "lib-server(1) does not name \(flag)")
        }
        for flag in ServerFlags.serve.flags {
            #expect(options.contains("\n       " + [flag.shortForm, flag.longForm].compactMap { $0 }.joined(separator: ", ")),
                    "OPTIONS lacks \(flag.label)")
        }
        for flag in ServerFlags.userAdd.flags {
            #expect(userAdd.contains("\n       " + [flag.shortForm, flag.longForm].compactMap { $0 }.joined(separator: ", ")),
                    "ADDING A USER lacks \(flag.label)")
        }
        #expect(text.contains("lib-server user add NAME [--role librarian|reader] --db PATH|URI"))
    }

    @Test func makeGenerateWritesThePage() throws {
        let script = try String(contentsOf: Self.root.appendingPathComponent("scripts/generate-docs.sh"), encoding: .utf8)
        #expect(script.contains(#"generate "$root/man/lib-server.1" "$server" __man"#))
        let makefile = try String(contentsOf: Self.root.appendingPathComponent("Makefile"), encoding: .utf8)
        #expect(makefile.contains("scripts/generate-docs.sh $(DEBUG_BIN)/lib $(DEBUG_BIN)/lib-server"))
    }

    /// The section's text, from the newline that ends its heading.
    static func section(_ text: String, _ heading: String, until next: String) -> Substring {
        guard let start = text.range(of: "\n\(heading)") else { return "" }
        let rest = text[start.upperBound...]
        return rest[..<(rest.range(of: "\n\(next)\n")?.lowerBound ?? rest.endIndex)]
    }
}
