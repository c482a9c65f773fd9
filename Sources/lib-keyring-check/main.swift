// lib-keyring-check: one keyring call per process, so that tests can run it
// in environments the test process cannot switch to (no bus, another bus, a
// locked keyring) and benchmarks can time loading libsecret.
//
//   lib-keyring-check [--timeout S] [--unlock-timeout S] [--library FILE]
//                     store|lookup|delete SERVER USER-ID [USER-NAME]
//   lib-keyring-check load        loads libsecret and exits
//   lib-keyring-check help        exits without loading anything
//
// The kernel keyring's side (system calls only, nothing loaded):
//   lib-keyring-check session PROGRAM [ARG...]
//       runs PROGRAM in a new, empty session keyring (a session where no
//       token is cached: another login, cron)
//   lib-keyring-check cached|persistent SERVER USER-ID [--remove]
//       prints the id of the account's key in the session keyring's cache
//       (request_key) or the persistent keyring; exit 1 and "none" without;
//       --remove invalidates the key found (a test's clean-up)
//   lib-keyring-check read-key KEY-ID [--as-uid UID] [--keep-session]
//       reads the key's payload (as UID: after setuid, in a new session
//       keyring unless --keep-session) and prints "read N bytes", or
//       "refused: ERRNO-NAME" with exit 1; never the payload itself
//
// store reads the token from stdin (one line); lookup prints it. Exit 0 on
// success, 4 on a keyring error (printed as "[kind] message" on stderr),
// 2 on a usage error.
import CKernelKeyring
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
    case .persistentKeyringUnavailable: "persistent-keyring-unavailable"
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
case "session":
    guard arguments.count >= 2 else { fail(usage: "session needs a PROGRAM") }
    let joined = ckeyring_join_new_session()
    guard joined >= 0 else {
        FileDescriptorOutput.standardError.write("lib-keyring-check: join_session_keyring: \(String(cString: strerror(-joined)))\n")
        exit(1)
    }
    let program = Array(arguments.dropFirst())
    var argv = program.map { strdup($0) } + [nil]
    execvp(program[0], &argv)
    FileDescriptorOutput.standardError.write("lib-keyring-check: \(program[0]): \(String(cString: strerror(errno)))\n")
    exit(127)
case "cached", "persistent":
    guard arguments.count == 3 || (arguments.count == 4 && arguments[3] == "--remove") else {
        fail(usage: "\(command) needs SERVER USER-ID [--remove]")
    }
    let description = "lib:token:\(arguments[1])#\(arguments[2])"
    var key: Int32
    if command == "cached" {
        key = ckeyring_request_user_key(description)
    } else {
        let keyring = ckeyring_persistent(Int32(CKEYRING_PROCESS))
        key = keyring < 0 ? keyring : ckeyring_search_user_key(keyring, description)
    }
    print(key < 0 ? "none" : "\(key)")
    if key >= 0 && arguments.count == 4 { _ = ckeyring_invalidate(key) }
    exit(key < 0 ? 1 : 0)
case "read-key":
    guard arguments.count >= 2, let key = Int32(arguments[1]) else { fail(usage: "read-key needs a KEY-ID") }
    var rest = Array(arguments.dropFirst(2))
    var keepSession = false, switched = false
    while let option = rest.first {
        rest.removeFirst()
        switch option {
        case "--as-uid":
            guard let text = rest.first, let uid = UInt32(text) else { fail(usage: "--as-uid needs a UID") }
            rest.removeFirst()
            guard setgroups(0, nil) == 0, setgid(uid) == 0, setuid(uid) == 0 else {
                FileDescriptorOutput.standardError.write("lib-keyring-check: setuid \(uid): \(String(cString: strerror(errno)))\n")
                exit(1)
            }
            switched = true
        case "--keep-session":
            keepSession = true
        default:
            fail(usage: "unknown option \(option)")
        }
    }
    // Another user in a session of their own, as they would be: the key is
    // not theirs and they do not possess it.
    if switched && !keepSession { _ = ckeyring_join_new_session() }
    var buffer = [UInt8](repeating: 0, count: 4096)
    let length = buffer.withUnsafeMutableBytes { ckeyring_read(key, $0.baseAddress, $0.count) }
    buffer.withUnsafeMutableBytes { explicit_bzero($0.baseAddress!, $0.count) }
    if length < 0 {
        let names: [Int32: String] = [EACCES: "EACCES", ENOKEY: "ENOKEY", EKEYREVOKED: "EKEYREVOKED", EKEYEXPIRED: "EKEYEXPIRED", EPERM: "EPERM"]
        print("refused: \(names[Int32(-length)] ?? String(cString: strerror(Int32(-length))))")
        exit(1)
    }
    print("read \(length) bytes")
    exit(0)
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
