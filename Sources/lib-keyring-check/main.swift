// lib-keyring-check: one keyring call per process, so that tests can run it
// in environments the test process cannot switch to (no bus, another bus, a
// locked keyring) and benchmarks can time loading libsecret.
//
//   lib-keyring-check [--timeout S] [--unlock-timeout S] [--library FILE]
//                     store|lookup|delete SERVER USER-ID [USER-NAME]
//   lib-keyring-check load        loads libsecret and exits
//   lib-keyring-check help        exits without loading anything
//
// store reads the token from stdin (one line); lookup prints it. Exit 0 on
// success, 4 on a keyring error (printed as "[kind] message" on stderr),
// 2 on a usage error.
import LibKeyring

#if canImport(Glibc)
import Glibc
#endif

let usage = """
    usage: lib-keyring-check [--timeout S] [--unlock-timeout S] [--library FILE] \
    store|lookup|delete SERVER USER-ID [USER-NAME]
           lib-keyring-check load | help
    """

func fail(usage message: String) -> Never {
    FileDescriptorOutput.standardError.write("lib-keyring-check: \(message)\n\(usage)\n")
    exit(2)
}

/// The case name of `error`, stable for tests to match on.
func kind(of error: KeyringError) -> String {
    switch error {
    case .notFound: "not-found"
    case .noSessionBus: "no-session-bus"
    case .noSecretService: "no-secret-service"
    case .noDefaultKeyring: "no-default-keyring"
    case .locked: "locked"
    case .promptDismissed: "prompt-dismissed"
    case .timedOut(_, let waitingForUnlock): waitingForUnlock ? "unlock-timed-out" : "timed-out"
    case .libsecretUnavailable: "libsecret-unavailable"
    case .other: "other"
    }
}

var timeouts = KeyringTimeouts()
var arguments = Array(CommandLine.arguments.dropFirst())
while let option = arguments.first, option.hasPrefix("--") {
    arguments.removeFirst()
    guard let value = arguments.first else { fail(usage: "\(option) needs a value") }
    arguments.removeFirst()
    switch option {
    case "--timeout", "--unlock-timeout":
        guard let seconds = Double(value), seconds >= 0 else { fail(usage: "\(option) needs seconds") }
        let duration = Duration.milliseconds(Int64(seconds * 1000))
        if option == "--timeout" { timeouts.call = duration } else { timeouts.unlockPrompt = duration }
    case "--library":
        _ = SecretServiceTokenStore.useLibrary(fileName: value)
    default:
        fail(usage: "unknown option \(option)")
    }
}

guard let command = arguments.first else { fail(usage: "no command") }
switch command {
case "help":
    print(usage)
    exit(0)
case "load":
    do throws(KeyringError) {
        try SecretServiceTokenStore.loadLibrary()
        exit(0)
    } catch {
        FileDescriptorOutput.standardError.write("[\(kind(of: error))] \(error)\n")
        exit(4)
    }
case "store", "lookup", "delete":
    break
default:
    fail(usage: "unknown command \(command)")
}
guard arguments.count == 3 || arguments.count == 4 else { fail(usage: "\(command) needs SERVER USER-ID [USER-NAME]") }
let account = KeyringAccount(
    server: arguments[1], userID: arguments[2], userName: arguments.count == 4 ? arguments[3] : arguments[2])
let store = SecretServiceTokenStore(timeouts: timeouts)

do throws(KeyringError) {
    switch command {
    case "store":
        guard let token = readLine(strippingNewline: true) else { fail(usage: "store reads the token from stdin") }
        try store.store(token: token, for: account)
    case "lookup":
        print(try store.token(for: account))
    default:
        try store.deleteToken(for: account)
    }
} catch {
    FileDescriptorOutput.standardError.write("[\(kind(of: error))] \(error)\n")
    exit(4)
}
