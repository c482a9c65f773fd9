import Foundation
@testable import LibServer
import LibBase
import Testing

/// lib-server's flags registry (`ServerFlags`): what each flag parses into,
/// and that every refusal names the flag or argument at fault.
@Suite struct ServerFlagsTests {
    static func serve(_ arguments: [String]) throws(ServerUsageError) -> ServeOptions {
        var options = ServeOptions()
        _ = try ServerFlags.serve.parse(arguments[...], into: &options)
        return options
    }

    static func userAdd(_ arguments: [String]) throws(ServerUsageError) -> UserAddOptions {
        var options = UserAddOptions()
        _ = try ServerFlags.userAdd.parse(arguments[...], into: &options)
        return options
    }

    /// The message a refused serving command line gets; nil when it parses.
    static func serveRefusal(_ arguments: [String]) -> String? {
        do { _ = try serve(arguments) } catch { return error.message }
        return nil
    }

    static func userAddRefusal(_ arguments: [String]) -> String? {
        do { _ = try userAdd(arguments) } catch { return error.message }
        return nil
    }

    /// A port alone listens on the loopback; an empty value (an old
    /// /etc/default/lib-server) leaves the listener off; anything else names the flag.
    @Test func opsListenTakesAPortOrAnAddress() throws {
        #expect(try Self.serve(["--db", "x"]).operations == nil)
        let port = try #require(try Self.serve(["--db", "x", "--ops-listen", "9181"]).operations)
        #expect(port.host == "127.0.0.1" && port.port == 9181)
        let address = try #require(try Self.serve(["--db", "x", "--ops-listen", "[::1]:0"]).operations)
        #expect(address.host == "::1" && address.port == 0)
        #expect(try Self.serve(["--db", "x", "--ops-listen", ""]).operations == nil)
        #expect(Self.serveRefusal(["--db", "x", "--ops-listen", "70000"]) == "--ops-listen wants a port from 0 to 65535, not '70000'")
        #expect(Self.serveRefusal(["--db", "x", "--ops-listen", "localhost"])
                == "--ops-listen wants HOST:PORT, as in 127.0.0.1:9181 or [::1]:0, not 'localhost'")
    }

    @Test func everyServeFlagSetsWhatItSays() throws {
        let options = try Self.serve([
            "--db", "library.sqlite", "--listen", "[::1]:0", "--demo", "--max-connections-per-peer", "3",
            "--session-lifetime", "60", "--fault", "status=503", "--fault", "truncate", "--fault-control", "-v",
        ])
        #expect(options.database == "library.sqlite" && options.host == "::1" && options.port == 0)
        #expect(options.demo && options.faultControl && options.verbose)
        #expect(options.limits.maxConnectionsPerPeer == 3 && options.sessionLifetime == 60)
        #expect(options.faults.map(\.description).count == 2)
        #expect(options.request == .serve)
        let defaults = try Self.serve(["--db", "x"])
        #expect(defaults.host == "127.0.0.1" && defaults.port == 8080 && !defaults.demo && !defaults.verbose && defaults.faults.isEmpty)
    }

    @Test func theMassChangeGuardIsTwentyBooksOrTwentyPercentUnlessSetOrOff() throws {
        #expect(try Self.serve(["--db", "x"]).massChangeGuard == MassChangeGuard(books: 20, percent: 20))
        #expect(try Self.serve(["--db", "x", "--guard-books", "50", "--guard-percent", "5"]).massChangeGuard == MassChangeGuard(books: 50, percent: 5))
        #expect(try Self.serve(["--db", "x", "--guard-books", "0"]).massChangeGuard == nil)
    }

    @Test func aValueMayBeAttachedWithAnEqualsSign() throws {
        let options = try Self.serve(["--db=a=b.sqlite", "--listen=127.0.0.1:9"])
        #expect(options.database == "a=b.sqlite" && options.port == 9)
    }

    @Test func helpAndVersionEndParsingWhateverFollows() throws {
        #expect(try Self.serve(["--help", "--frobnicate"]).request == .help)
        #expect(try Self.serve(["-h"]).request == .help)
        #expect(try Self.serve(["--version", "--db"]).request == .version)
        #expect(try Self.userAdd(["--help"]).wantsHelp)
    }

    @Test func userAddTakesANameARoleAndADatabase() throws {
        let options = try Self.userAdd(["dora", "--role", "librarian", "--db", "x"])
        #expect(options.name == "dora" && options.role == .librarian && options.database == "x")
        #expect(try Self.userAdd(["--db", "x", "eve"]).role == .reader)
    }

    @Test(arguments: [
        (["--db", "x", "--dbb", "y"], "unknown argument '--dbb'. Did you mean '--db'?"),
        (["--db", "x", "--frobnicate"], "unknown argument '--frobnicate'"),
        (["--db", "x", "serve"], "unknown argument 'serve'"),
        (["--db", "x", "--role", "reader"], "unknown argument '--role'"),
        (["--db"], "--db needs a value"),
        (["--db", "x", "--listen"], "--listen needs a value"),
        (["--db", "x", "--demo=yes"], "--demo takes no value"),
        (["--listen", "127.0.0.1:0"], "--db PATH|URI is required"),
        (["--db", "x", "--listen", "nowhere"], "--listen wants HOST:PORT, as in 127.0.0.1:8080 or [::1]:0, not 'nowhere'"),
        (["--db", "x", "--listen", ":80"], "--listen needs a host, as in 127.0.0.1:80"),
        (["--db", "x", "--session-lifetime", "0"], "--session-lifetime wants a positive number of seconds, not '0'"),
        (["--db", "x", "--max-connections-per-peer", "many"], "--max-connections-per-peer wants a positive number, not 'many'"),
        (["--db", "x", "--guard-percent", "150"], "--guard-percent wants a percentage from 0 to 100, not '150'"),
        (["--db", "x", "--guard-books", "-1"], "--guard-books wants a number of books (0 turns the guard off), not '-1'"),
        (["--db", "x", "--book-schema", "/nonexistent/schema.json"], "--book-schema: couldn't read '/nonexistent/schema.json'"),
        (["--db", "x", "--fault", "explode"],
         "invalid fault 'explode': unknown action 'explode' (drop-before-write, drop-after-commit, truncate, delay=MS, status=CODE, hold-before-commit=MS, hold-after-commit=MS)"),
    ])
    func serveRefusalsNameTheFlag(arguments: [String], message: String) {
        #expect(Self.serveRefusal(arguments) == message)
    }

    @Test(arguments: [
        (["--db", "x"], "user add needs a NAME"),
        (["dora"], "--db PATH|URI is required"),
        (["dora", "eve", "--db", "x"], "unknown argument 'eve'"),
        (["dora", "--role", "king", "--db", "x"], "--role wants librarian or reader, not 'king'"),
        (["dora", "--rol", "reader"], "unknown argument '--rol'. Did you mean '--role'?"),
        (["dora", "--db", "x", "--demo"], "unknown argument '--demo'"),
        (["dora", "--role"], "--role needs a value"),
    ])
    func userAddRefusalsNameTheFlag(arguments: [String], message: String) {
        #expect(Self.userAddRefusal(arguments) == message)
    }

    /// Whatever the flag, a missing value or a misspelling is refused naming it.
    @Test func everyFlagIsNamedWhenItIsMisused() {
        for flag in ServerFlags.serve.flags where !flag.endsParsing {
            let base = flag.name == "db" ? [] : ["--db", "x"]
            if flag.value != nil {
                #expect(Self.serveRefusal(base + [flag.longForm]) == "\(flag.longForm) needs a value")
            } else {
                #expect(Self.serveRefusal(base + [flag.longForm + "=1"]) == "\(flag.longForm) takes no value")
            }
            let typo = flag.longForm + "x"
            let refused = Self.serveRefusal(base + [typo]) ?? ""
            #expect(refused.hasPrefix("unknown argument '\(typo)'. Did you mean ") && refused.contains("'\(flag.longForm)'"), "\(refused)")
        }
    }

    @Test func theUsageNamesEveryFlagInLinesOfAtMost80Columns() {
        let usage = ServerUsage.text
        for line in usage.split(separator: "\n") {
            #expect(line.count <= 80, "\(line)")
        }
        for flag in ServerFlags.serve.flags {
            #expect(usage.contains("\n  \(flag.label)   "), "--help lacks \(flag.label)")
        }
        for flag in ServerFlags.userAdd.flags {
            #expect(usage.contains("\n  \(flag.label)   "), "--help lacks user add's \(flag.label)")
        }
        #expect(usage.hasPrefix("usage: lib-server --db PATH|URI [--listen HOST:PORT]"))
        #expect(usage.contains("\n       lib-server user add NAME [--role librarian|reader] --db PATH|URI\n"))
    }
}
