import Foundation
import LibBase
import LibHTTPServer

/// `lib-server`'s command line: serve, or add a user.
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
                                     speaksV2: !options.v1Only, deviceGrant: options.deviceGrant, clock: options.faultControl ? .movable() : .system,
                                     connectionLimits: options.limits, log: log)
        let server = HTTPServer(limits: options.limits, handler: service.handle)
        let boundPort = try server.bind(host: host, port: port)
        let shownHost = host.contains(":") ? "[\(host)]" : host
        // Unbuffered: whoever started the server waits for this line.
        FileHandle.standardOutput.write(Data("listening on http://\(shownHost):\(boundPort)\n".utf8))
        if !faults.isEmpty {
            FileHandle.standardError.write(Data("lib-server: faults in force: \(faults.map(\.description).joined(separator: "; "))\n".utf8))
        }

        ServerStopSignals.stop(server, onSignalFrom: stopSignals)
        server.run()
        return 0
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
}
