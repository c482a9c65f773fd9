import Foundation
import LibBase
import LibHTTPServer

/// `lib-server`'s command line: serve, add a user, back up or restore.
public enum ServerCommandLine {
    static let version = "0.1.0"

    /// Runs the command and returns the process's exit status.
    public static func main(_ arguments: [String], environment: [String: String]) -> Int32 {
        do {
            if arguments == ["__man"] {
                print(ServerManualPage.render(), terminator: "")
                return 0
            }
            if arguments.first == "user" { return try addUser(arguments.dropFirst()) }
            if arguments.first == "backup" { return try backup(arguments.dropFirst()) }
            if arguments.first == "restore" { return try restore(arguments.dropFirst()) }
            return try serve(arguments[...], environment: environment)
        } catch let error as ServerUsageError {
            FileHandle.standardError.write(Data("lib-server: \(error.message)\n\n\(ServerUsage.text)\n".utf8))
            return 2
        } catch {
            FileHandle.standardError.write(Data("lib-server: \(error)\n".utf8))
            return 1
        }
    }

    private static func serve(_ arguments: ArraySlice<String>, environment: [String: String]) throws -> Int32 {
        var options = ServeOptions()
        _ = try ServerFlags.serve.parse(arguments, into: &options)
        switch options.request {
        case .help: print(ServerUsage.text); return 0
        case .version: print("lib-server \(version)"); return 0
        case .serve: break
        }
        try DescriptorLimit.raise(toServe: options.limits.maxConnections)
        let (host, port, faults) = (options.host, options.port, options.faults)
        // Before any thread starts, so that every thread inherits the mask.
        let stopSignals = try ServerStopSignals.block()
        let drainSignal = try ServerStopSignals.blockDrain()
        let startTime = Date().timeIntervalSince1970

        let store = try ServerDatabase.open(options.database, demo: options.demo)
        if PostgresLocation.isPostgres(options.database) {
            PostgresChangeListener.start(uri: options.database, notices: store.changeNotices)
        }
        var log: (@Sendable (String) -> Void)?
        if options.verbose { log = { line in FileHandle.standardError.write(Data("\(line)\n".utf8)) } }
        let service = LibraryService(store: store, faults: faults, allowsFaultControl: options.faultControl,
                                     bookSchema: options.bookSchema, sessionLifetime: options.sessionLifetime,
                                     changeRetention: options.changeRetention,
                                     batchLimits: WriteBatchLimits(maxItems: options.maxBatchWrites, maxBytes: options.limits.maxBodyBytes),
                                     massChangeGuard: options.massChangeGuard, speaksV2: !options.v1Only, deviceGrant: options.deviceGrant,
                                     clock: options.faultControl ? .movable() : .system,
                                     connectionLimits: options.limits, countsRequests: options.operations != nil, log: log)
        let server = HTTPServer(limits: options.limits, answerWithoutWaiting: service.answerWithoutWaiting, handler: service.handle)
        let boundPort = try server.bind(host: host, port: port)
        var operationsServer: HTTPServer?
        var operationsLine = ""
        if let operations = options.operations {
            let endpoint = OperationsEndpoint(service: service, server: server, database: options.database,
                                              version: version, startTime: startTime)
            let ops = HTTPServer(limits: OperationsEndpoint.limits, handler: endpoint.handle)
            let opsPort = try ops.bind(host: operations.host, port: operations.port)
            operationsServer = ops
            operationsLine = "operations on \(shown(operations.host, opsPort))\n"
        }
        // Unbuffered: whoever started the server waits for this line (the first).
        FileHandle.standardOutput.write(Data("listening on \(shown(host, boundPort))\n\(operationsLine)".utf8))
        if !faults.isEmpty {
            FileHandle.standardError.write(Data("lib-server: faults in force: \(faults.map(\.description).joined(separator: "; "))\n".utf8))
        }

        ServerStopSignals.stop([server] + (operationsServer.map { [$0] } ?? []), onSignalFrom: stopSignals)
        ServerStopSignals.drain(server, onSignalFrom: drainSignal)
        if let operationsServer {
            _ = NativeThread.start(detached: true, stackSize: 2 * 1024 * 1024) { operationsServer.run() }
        }
        server.run()
        return 0
    }

    private static func shown(_ host: String, _ port: Int) -> String {
        "http://" + (host.contains(":") ? "[\(host)]" : host) + ":\(port)"
    }

    private static func addUser(_ arguments: ArraySlice<String>) throws -> Int32 {
        guard arguments.first == "add" else {
            throw ServerUsageError("unknown command 'user \(arguments.first ?? "")'; did you mean 'user add'?")
        }
        var options = UserAddOptions()
        _ = try ServerFlags.userAdd.parse(arguments.dropFirst(), into: &options)
        if options.wantsHelp {
            print(ServerUsage.text)
            return 0
        }
        var password = String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
        if password.hasSuffix("\n") { password.removeLast() }
        guard !password.isEmpty else { throw ServerUsageError("give the password on standard input") }
        let store = try ServerDatabase.open(options.database)
        try ServerDatabase.addUser(options.name, password: password, role: options.role, in: store)
        print("Added \(options.role.rawValue) \(options.name)")
        return 0
    }

    private static func backup(_ arguments: ArraySlice<String>) throws -> Int32 {
        var options = BackupOptions()
        _ = try ServerFlags.backup.parse(arguments, into: &options)
        if options.wantsHelp {
            print(ServerUsage.text)
            return 0
        }
        if PostgresLocation.isPostgres(options.database) {
            throw ServerUsageError("""
                backup copies an SQLite database; back up PostgreSQL with pg_dump or pg_basebackup \
                (DEPLOY.md in /usr/share/doc/lib-server, "Backup and restore"), then after restoring run 'lib-server restore --db URI'
                """)
        }
        let report = try ServerBackup.run(options)
        let megabytes = String(format: "%.1f", Double(report.bytes) / 1_048_576)
        print("Backed up \(report.books) books (\(megabytes) MiB) from \(options.database) to \(options.target) in \(String(format: "%.2f", report.seconds)) s")
        return 0
    }

    private static func restore(_ arguments: ArraySlice<String>) throws -> Int32 {
        var options = RestoreOptions()
        _ = try ServerFlags.restore.parse(arguments, into: &options)
        if options.wantsHelp {
            print(ServerUsage.text)
            return 0
        }
        let report = try ServerRestore.run(options)
        let shown = PostgresLocation.redacted(options.database)
        if let source = options.source { print("Restored \(report.books) books from \(source) into \(shown)") }
        print("Started feed epoch \(report.epoch): every device lists the books again at its next pull")
        return 0
    }
}
