import Foundation
import LibBase

/// Every flag of lib-server, declared once. `ServerCommandLine` parses with
/// these, `ServerUsage` prints them for `--help`, and `ServerManualPage`
/// writes them into `man/lib-server.1` (`lib-server __man`; a test checks
/// the committed page is what this list makes).
enum ServerFlags {
    static let serve = ServerCommandSyntax<ServeOptions>(
        words: [],
        summary: "Serves protocols v1 and v2 (PROTOCOL.md in /usr/share/doc/lib-server). The first line on stdout is 'listening on http://HOST:PORT'.",
        flags: [
            ServerFlag(name: "db", short: nil, value: "PATH|URI",
                       summary: "the database: an SQLite file, or postgresql://USER@HOST:PORT/DB",
                       manual: """
                           The database: an SQLite file, or a libpq connection URI such as \
                           postgresql://lib-server@localhost:5432/library, for a database several servers share \
                           (DEPLOY.md). A libpq keyword=value string (host=a,b,c dbname=library \
                           target_session_attrs=read-write) or a URI with several hosts names a replicated \
                           PostgreSQL: after losing its connection, lib-server finds the new primary by itself. \
                           Pointed at a standby only, it serves reads and answers writes 503. \
                           libpq reads a password from ~/.pgpass and the PG* environment variables, \
                           as usual; never put one in the URI. Required.
                           """, isRequired: true) { options, value in options.database = value },
            ServerFlag(name: "listen", short: nil, value: "HOST:PORT",
                       summary: "where to listen (127.0.0.1:8080); port 0 picks a free one",
                       manual: """
                           The address to listen on (default 127.0.0.1:8080); an IPv6 host is written in brackets, \
                           as in [::1]:8080. Port 0 picks a free port.
                           """) { options, value throws(ServerUsageError) in (options.host, options.port) = try ServeOptions.parseListen(value) },
            ServerFlag(name: "ops-listen", short: nil, value: "[HOST:]PORT",
                       summary: "serves /livez, /readyz, /metrics and POST /drain there (127.0.0.1 unless a host is given)",
                       manual: """
                           Serves the operations endpoints on a second listener: GET /livez (200 while the process \
                           answers), GET /readyz (200 when the database takes writes; 503 with the reason, such as \
                           'database is a standby (read-only)', 'database unreachable: ...' or 'draining'), \
                           GET /metrics (Prometheus text: requests and their durations by route pattern and status, \
                           write outcomes, change-feed waiters, database pool use, open connections, build info) \
                           and POST /drain (as SIGUSR1: /readyz answers 503 from then on while every request is still \
                           served, each connection closed after its answer, so that a load balancer moves away \
                           before the server is stopped). A port alone listens on 127.0.0.1: these endpoints have no \
                           authentication, so give another address only on a network you trust. Off unless given, \
                           and when given empty (a configuration file from before it existed); the Debian package \
                           uses 127.0.0.1:9181.
                           """) { options, value throws(ServerUsageError) in
                options.operations = value.isEmpty ? nil : try ServeOptions.parseOperationsListen(value)
            },
            ServerFlag(name: "demo", short: nil, value: nil,
                       summary: "adds the demo users (alice, bob, carol) and books b-1 to b-20",
                       manual: """
                           Adds demonstration data: the librarians alice and bob and the reader carol, with passwords \
                           alice-demo, bob-demo and carol-demo, and the books b-1 to b-20. For trying lib out; never \
                           on a real library.
                           """) { options, _ in options.demo = true },
            ServerFlag(name: "book-schema", short: nil, value: "FILE",
                       summary: "validates books with this JSON Schema (2020-12) and serves it",
                       manual: """
                           Validates books with this JSON Schema (2020-12) instead of the built-in one, and serves it \
                           at GET /v1/schemas/book. A schema that cannot be read or applied stops the server before \
                           it listens.
                           """) { options, value throws(ServerUsageError) in options.bookSchema = try ServeOptions.loadBookSchema(value) },
            ServerFlag(name: "max-connections", short: nil, value: "N",
                       summary: "how many connections the server holds open at once (1024 by default)",
                       manual: """
                           How many connections the server holds open at once (1024 by default). When full, it closes \
                           the connection that has waited longest for a request to make room, or answers 503. An idle \
                           keep-alive connection costs no thread and a few kilobytes: raise it for many idle clients. \
                           Each connection is a file descriptor: lib-server raises its soft descriptor limit to the \
                           hard one (ulimit -Hn, LimitNOFILE) and does not start unless N and about a tenth more fit \
                           under it. Waiting change-feed requests hold at most half of N.
                           """) { options, value throws(ServerUsageError) in
                options.limits.maxConnections = try ServeOptions.positive(value, for: "--max-connections", wants: "a positive number")
            },
            ServerFlag(name: "max-connections-per-peer", short: nil, value: "N",
                       summary: "how many connections one client address may hold open",
                       manual: """
                           How many connections one client address may hold open at once. Behind a reverse proxy \
                           every client comes from the proxy's address: raise it, and let the proxy limit each client. \
                           Waiting change-feed requests from one address hold at most half of N.
                           """) { options, value throws(ServerUsageError) in
                options.limits.maxConnectionsPerPeer = try ServeOptions.positive(value, for: "--max-connections-per-peer", wants: "a positive number")
            },
            ServerFlag(name: "session-lifetime", short: nil, value: "SECONDS",
                       summary: "a token unused for longer is refused (401); 90 days by default",
                       manual: """
                           How long a session lasts without use: each use moves its end on (written down at most \
                           once an hour), so a device that keeps using it, cron included, stays signed in, and a \
                           token unused for longer than this is refused (401) and lib asks its user to sign in \
                           again. The default is 90 days (7776000): longer than the change feed keeps deletions, so \
                           a device offline for a month comes back signed in.
                           """) { options, value throws(ServerUsageError) in
                options.sessionLifetime = TimeInterval(try ServeOptions.positive(value, for: "--session-lifetime", wants: "a positive number of seconds"))
            },
            ServerFlag(name: "change-retention", short: nil, value: "SECONDS",
                       summary: "how long GET /v1/changes keeps a deletion; 30 days by default",
                       manual: """
                           How long the change feed (GET /v1/changes) keeps a deletion. A client whose cursor is \
                           older than a deletion pruned since gets 410 and lists the books again. The default is \
                           30 days (2592000); 0 prunes each deletion at the next write (for tests).
                           """) { options, value throws(ServerUsageError) in
                guard let seconds = Int(value), seconds >= 0 else {
                    throw ServerUsageError("--change-retention wants a number of seconds, not '\(value)'")
                }
                options.changeRetention = TimeInterval(seconds)
            },
            ServerFlag(name: "fault", short: nil, value: "SPEC",
                       summary: "for tests: misbehave as SPEC says (FAULTS.md)",
                       manual: """
                           For tests only: makes the server misbehave as SPEC says (drop a connection, delay, answer \
                           an error status; FAULTS.md). May be given more than once. Faults come only from the \
                           flags, never from the environment.
                           """, isRepeatable: true) { options, value throws(ServerUsageError) in
                do throws(FaultRuleError) { options.faults.append(try FaultRule(parsing: value)) } catch {
                    throw ServerUsageError(error.description)
                }
            },
            ServerFlag(name: "fault-control", short: nil, value: nil,
                       summary: "for tests: clients may change the faults at /_test/faults",
                       manual: "For tests only: lets clients change the faults in force at /_test/faults.") { options, _ in
                options.faultControl = true
            },
            ServerFlag(name: "max-batch-writes", short: nil, value: "N",
                       summary: "the most writes one protocol-v2 batch may carry; 1000 by default",
                       manual: """
                           The most writes one POST /v2/writes may carry, announced at GET /v2/capabilities; a \
                           larger batch is refused (413) naming the limit. The default is 1000.
                           """) { options, value throws(ServerUsageError) in
                options.maxBatchWrites = try ServeOptions.positive(value, for: "--max-batch-writes", wants: "a positive number")
            },
            ServerFlag(name: "guard-books", short: nil, value: "N",
                       summary: "the mass-change guard: a batch may delete or blank N books, or P% (20 by default; 0: no guard)",
                       manual: """
                           The mass-change guard: one POST /v2/writes whose writes would delete books, or blank a \
                           field that had a value (remove it, or set it to null, "" or []), of more than N books and \
                           more than --guard-percent of the live books is refused whole (422, type \
                           \(MassChangeGuard.problemType)), nothing applied, unless it carries \
                           \(MassChangeGuard.confirmHeader): 1 (lib push --force). The default is \(MassChangeGuard.standard.books); \
                           0 turns the guard off.
                           """) { options, value throws(ServerUsageError) in
                options.guardBooks = try ServeOptions.count(value, for: "--guard-books", upTo: 1_000_000_000,
                                                            wants: "a number of books (0 turns the guard off)")
            },
            ServerFlag(name: "guard-percent", short: nil, value: "P",
                       summary: "the mass-change guard's share of the live books; 20 by default",
                       manual: """
                           The mass-change guard's share of the live books, 0 to 100: a batch may delete or blank \
                           up to P percent of them when that is more than --guard-books. The default is \
                           \(MassChangeGuard.standard.percent).
                           """) { options, value throws(ServerUsageError) in
                options.guardPercent = try ServeOptions.count(value, for: "--guard-percent", upTo: 100, wants: "a percentage from 0 to 100")
            },
            ServerFlag(name: "legacy-protocol", short: nil, value: nil,
                       summary: "for tests: speak protocol v1 only, as a server from before v2",
                       manual: """
                           For tests and benchmarks: serves protocol v1 only (no /v2 routes: GET /v2/capabilities \
                           is 404), as a server from before protocol v2 does.
                           """) { options, _ in options.v1Only = true },
            ServerFlag(name: "no-device-grant", short: nil, value: nil,
                       summary: "turns device sign-in (RFC 8628) off",
                       manual: """
                           Turns device sign-in off: POST /v1/device/code, /v1/device/token and /v1/device/approve \
                           and the page at /device answer 404, and lib login --device says the server does not \
                           offer it. Device sign-in lets a device without a keyboard (or one its user should not \
                           type a password on) sign in when a signed-in user approves the code it shows, at /device \
                           or with lib device approve CODE; codes last 15 minutes, and wrong codes are limited to \
                           10 a minute from one address and 100 a minute in all.
                           """) { options, _ in options.deviceGrant = false },
            ServerFlag(name: "verbose", short: "v", value: nil,
                       summary: "logs every request on standard error",
                       manual: "Logs every request on standard error.") { options, _ in options.verbose = true },
            ServerFlag(name: "help", short: "h", value: nil, summary: "prints this and exits",
                       manual: "Prints the usage and exits.", endsParsing: true) { options, _ in options.request = .help },
            ServerFlag(name: "version", short: nil, value: nil, summary: "prints the version and exits",
                       manual: "Prints the version and exits.", endsParsing: true) { options, _ in options.request = .version },
        ])

    static let userAdd = ServerCommandSyntax<UserAddOptions>(
        words: ["user", "add"],
        summary: """
            Adds a user, reading the password from standard input (a final newline is not part of it); \
            a user of that name must not exist yet.
            """,
        operand: .init(placeholder: "NAME") { options, name in options.name = name },
        flags: [
            ServerFlag(name: "role", short: nil, value: "librarian|reader",
                       summary: "a librarian may change books, a reader only read them (reader)",
                       manual: "A librarian may change books, a reader only read them (default reader).") { options, value throws(ServerUsageError) in
                guard let role = Role(rawValue: value) else { throw ServerUsageError("--role wants librarian or reader, not '\(value)'") }
                options.role = role
            },
            ServerFlag(name: "db", short: nil, value: "PATH|URI", summary: "the database, as for serving",
                       manual: "The database to add the user to, as for serving. Required.", isRequired: true) { options, value in
                options.database = value
            },
            ServerFlag(name: "help", short: "h", value: nil, summary: "prints the usage and exits",
                       manual: "Prints the usage and exits.", endsParsing: true) { options, _ in options.wantsHelp = true },
        ])

    static let backup = ServerCommandSyntax<BackupOptions>(
        words: ["backup"],
        summary: """
            Copies an SQLite database while lib-server serves it, as one consistent snapshot \
            (SQLite's online backup; writers go on meanwhile), into a new file of mode 0600. \
            PostgreSQL is backed up with its own tools (DEPLOY.md in /usr/share/doc/lib-server).
            """,
        flags: [
            ServerFlag(name: "db", short: nil, value: "PATH", summary: "the SQLite database to copy",
                       manual: "The SQLite database to copy, as given to the server. Required.", isRequired: true) { options, value in
                options.database = value
            },
            ServerFlag(name: "to", short: nil, value: "FILE", summary: "the backup file to write; refused when it exists, unless --replace",
                       manual: """
                           The backup file to write. It is written beside FILE under a temporary name and renamed \
                           once complete and checked, so FILE is never half written. It must not exist yet, unless --replace is given.
                           """, isRequired: true) { options, value in options.target = value },
            ServerFlag(name: "replace", short: nil, value: nil, summary: "overwrites FILE when it exists",
                       manual: "Overwrites FILE when it exists (a nightly backup to the same name).") { options, _ in
                options.replace = true
            },
            ServerFlag(name: "help", short: "h", value: nil, summary: "prints the usage and exits",
                       manual: "Prints the usage and exits.", endsParsing: true) { options, _ in options.wantsHelp = true },
        ])

    static let restore = ServerCommandSyntax<RestoreOptions>(
        words: ["restore"],
        summary: """
            Starts a new change-feed epoch, so that every device lists the books again at its next pull \
            and sends its pending writes against the restored books. With --from, first copies an SQLite \
            backup into place; lib-server must be stopped for that.
            """,
        flags: [
            ServerFlag(name: "db", short: nil, value: "PATH|URI", summary: "the database, as for serving",
                       manual: """
                           The database, as for serving: an SQLite file, or PostgreSQL after restoring it with \
                           pg_restore or from pg_basebackup (DEPLOY.md in /usr/share/doc/lib-server). Required.
                           """, isRequired: true) { options, value in options.database = value },
            ServerFlag(name: "from", short: nil, value: "FILE", summary: "an SQLite backup to copy into PATH first",
                       manual: """
                           An SQLite backup made by lib-server backup, copied into PATH (created when missing) in one \
                           transaction. Refused while any program, lib-server included, has PATH open: stop the \
                           server first. Not for PostgreSQL.
                           """) { options, value in options.source = value },
            ServerFlag(name: "help", short: "h", value: nil, summary: "prints the usage and exits",
                       manual: "Prints the usage and exits.", endsParsing: true) { options, _ in options.wantsHelp = true },
        ])
}
