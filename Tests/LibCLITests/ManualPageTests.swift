import Foundation
import LibCLI
@testable import LibCommands
import TestSupport
import Testing
import LibBase

@Test(.enabled(if: isInstalled("/usr/bin/mandoc")))
func manPagePassesMandocLint() throws {
    let path = Repository.root.appendingPathComponent("man/lib.1").path
    let result = try CommandRunner.run("/usr/bin/mandoc", ["-Tlint", "-Wall", path])
    #expect(result.status == 0, "\(result)")
    #expect(result.stdout.isEmpty && result.stderr.isEmpty, "\(result)")
}

@Test(.enabled(if: isInstalled("/usr/bin/groff")))
func manPageRendersWithGroffWithoutWarnings() throws {
    let path = Repository.root.appendingPathComponent("man/lib.1").path
    let result = try CommandRunner.run("/usr/bin/groff", ["-ww", "-man", "-Tutf8", "-z", path])
    #expect(result.status == 0 && result.stderr.isEmpty, "\(result)")
}

@Test func manPageHasTheHandWrittenSections() {
    let page = ManualPage(registry: .lib).render()
    for section in ["NAME", "SYNOPSIS", "DESCRIPTION", "GLOBAL OPTIONS", "COMMANDS", "ENVIRONMENT", "FILES",
                    "EXIT STATUS", "EXAMPLES", "SEE ALSO"] {
        #expect(page.contains("\n.SH \(section)\n"), "missing section \(section)")
    }
    #expect(page.contains(".TH LIB 1 \(ProgramInfo.manualDate) \"lib \(ProgramInfo.version)\""))
    for variable in ["LIB_HOME", "LIB_ACCOUNT", "XDG_CONFIG_HOME", "NO_COLOR", "EDITOR"] {
        #expect(page.contains(variable), "ENVIRONMENT lacks \(variable)")
    }
    for code in ExitCode.allCases {
        #expect(page.contains(".TP\n\\fB\(code.rawValue)\\fR\n"), "EXIT STATUS lacks \(code.rawValue)")
    }
    // Lines that roff would take for requests are escaped.
    for line in page.split(separator: "\n") where line.hasPrefix(".") || line.hasPrefix("'") {
        let request = line.prefix { $0 != " " }
        #expect([".TH", ".SH", ".SS", ".PP", ".TP", ".br", ".BR", ".\\\""].contains(String(request)), "stray request: \(line)")
    }
}

@Test func roffEscapesHyphensBackslashesAndLeadingDots() {
    let page = ManualPage(registry: .lib).render()
    #expect(page.contains("\\fB\\-\\-wait\\fR \\fIDURATION\\fR"))
    #expect(!page.contains(" --"))
}
