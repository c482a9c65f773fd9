// lib-net-check: a developer diagnostic for LibNet. One request, one probe
// or one wait, with the classification a command would act on.
//
//   lib-net-check request URL [--timeout S] [--connect-timeout S]
//                 [--header 'K: V']... [--pending N] [--account A] [--cacert FILE] [--debug]
//       stdout: `ok STATUS`, or the failure's reason token;
//       stderr: the explanation (and with --debug, libcurl's numbers, which
//       never include a header); exit status: the explanation's exit code.
//   lib-net-check probe HOST [PORT] [--repeat N]
//       -> available | unavailable | unknown (with --repeat, µs per probe on stderr)
//   lib-net-check wait-path HOST [PORT] --deadline S
//       -> `available after X.XXs` (exit 0) | `gave up after X.XXs` (exit 75)
//   lib-net-check networkmanager [--changes N --deadline S]
//       -> `STATE CONNECTIVITY metered|unmetered`, or `absent`; with
//          --changes, one more line for each of N changes it signals
import Glibc
import LibNet
import LibBase

/// Writes a line to standard error.
func printError(_ text: String) {
    let line = text + "\n"
    _ = line.withCString { write(2, $0, strlen($0)) }
}

/// Ends with a usage error (exit 2).
func usage(_ problem: String) -> Never {
    printError("lib-net-check: \(problem)")
    printError("usage: lib-net-check request URL [--timeout S] [--connect-timeout S] [--header 'K: V'] [--pending N] [--account A] [--cacert FILE] [--debug]")
    printError("       lib-net-check probe HOST [PORT] [--repeat N]")
    printError("       lib-net-check wait-path HOST [PORT] --deadline S")
    printError("       lib-net-check networkmanager [--changes N --deadline S]")
    exit(2)
}

func duration(_ text: String, for option: String) -> Duration {
    guard let seconds = Double(text), seconds > 0, seconds < 1e9 else { usage("\(option) wants seconds, got \(text)") }
    return .milliseconds(Int64(seconds * 1000))
}

/// Seconds with two decimals, e.g. "1.52s".
func formatted(_ duration: Duration) -> String {
    let (seconds, attoseconds) = duration.components
    return twoDecimals(Int(seconds) * 100 + Int(attoseconds / 10_000_000_000_000_000)) + "s"
}

/// A count of hundredths as a decimal: 152 -> "1.52".
func twoDecimals(_ hundredths: Int) -> String {
    let fraction = hundredths % 100
    return "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)"
}

func request(_ arguments: [String]) -> Int32 {
    var url: String?
    var configuration = TransportConfiguration.fromEnvironment(
        Dictionary(uniqueKeysWithValues: environmentPairs()))
    var headers = HTTPHeaders()
    var pending = 0
    var account: String?
    var debug = false
    var index = 0
    func value() -> String {
        index += 1
        guard index < arguments.count else { usage("\(arguments[index - 1]) needs a value") }
        return arguments[index]
    }
    while index < arguments.count {
        let argument = arguments[index]
        switch argument {
        case "--timeout": configuration.totalTimeout = duration(value(), for: argument)
        case "--connect-timeout": configuration.connectTimeout = duration(value(), for: argument)
        case "--cacert": configuration.caBundlePath = value()
        case "--account": account = value()
        case "--debug": debug = true
        case "--pending":
            guard let count = Int(value()), count >= 0 else { usage("--pending wants a count") }
            pending = count
        case "--header":
            let line = value()
            guard let colon = line.firstIndex(of: ":") else { usage("--header wants 'Name: value'") }
            headers.add(String(line[..<colon]), String(line[line.index(after: colon)...]).trimmingPrefix(" ").description)
        default:
            guard url == nil, !argument.hasPrefix("--") else { usage("unexpected \(argument)") }
            url = argument
        }
        index += 1
    }
    guard let url else { usage("request needs a URL") }
    guard let endpoint = ServerOrigin(requestURL: url) else { usage("not an http or https URL: \(url)") }

    let transport = CurlTransport(configuration: configuration)
    let failure: TransportFailure
    do {
        let response = try transport.send(HTTPRequest(url: url, headers: headers))
        guard let failed = TransportFailure(response: response, endpoint: endpoint) else {
            print("ok \(response.status)")
            return 0
        }
        failure = failed
    } catch {
        failure = error
    }
    let explanation = FailureExplanation.diagnose(failure, account: account, pendingWrites: pending)
    print(explanation.reason.token)
    printError(explanation.message)
    if debug { printError("debug: \(failure)") }
    return explanation.exitCode.rawValue
}

func environmentPairs() -> [(String, String)] {
    var pairs: [(String, String)] = []
    var seen = Set<String>()
    var cursor = environ
    while let entry = cursor.pointee {
        let text = String(cString: entry)
        if let equals = text.firstIndex(of: "=") {
            let name = String(text[..<equals])
            if seen.insert(name).inserted { pairs.append((name, String(text[text.index(after: equals)...]))) }
        }
        cursor += 1
    }
    return pairs
}

func port(_ text: String) -> UInt16 {
    guard let port = UInt16(text) else { usage("not a port: \(text)") }
    return port
}

func probe(_ arguments: [String]) -> Int32 {
    var positional = arguments
    var repeats = 1
    if let flag = positional.firstIndex(of: "--repeat") {
        guard flag + 1 < positional.count, let count = Int(positional[flag + 1]), count > 0 else {
            usage("--repeat wants a count")
        }
        repeats = count
        positional.removeSubrange(flag...(flag + 1))
    }
    guard (1...2).contains(positional.count) else { usage("probe wants HOST [PORT] [--repeat N]") }
    let host = positional[0], portNumber = positional.count == 2 ? port(positional[1]) : 443
    var status = PathStatus.unknown
    let elapsed = ContinuousClock().measure {
        for _ in 0..<repeats { status = PathProbe.status(for: host, port: portNumber) }
    }
    print(status.rawValue)
    if repeats > 1 {
        let (seconds, attoseconds) = elapsed.components
        let microseconds = (Double(seconds) * 1e6 + Double(attoseconds) / 1e12) / Double(repeats)
        printError("\(repeats) probes, \(twoDecimals(Int((microseconds * 100).rounded()))) µs each")
    }
    return 0
}


func waitPath(_ arguments: [String]) -> Int32 {
    var positional: [String] = []
    var deadline: Duration?
    var index = 0
    while index < arguments.count {
        if arguments[index] == "--deadline" {
            guard index + 1 < arguments.count else { usage("--deadline needs seconds") }
            deadline = duration(arguments[index + 1], for: "--deadline")
            index += 2
        } else {
            positional.append(arguments[index])
            index += 1
        }
    }
    guard let deadline, (1...2).contains(positional.count) else { usage("wait-path wants HOST [PORT] --deadline S") }
    let watcher = PathWatcher(host: positional[0], port: positional.count == 2 ? port(positional[1]) : 443)
    switch watcher.waitForPath(for: deadline) {
    case .available(let after):
        print("available after \(formatted(after))")
        return 0
    case .gaveUp(let after):
        print("gave up after \(formatted(after))")
        return ExitCode.temporaryFailure.rawValue
    }
}

func describe(_ status: NetworkManagerStatus?) -> String {
    guard let status else { return "absent" }
    return "\(status.state) \(status.connectivity) \(status.metered ? "metered" : "unmetered")"
}

func networkManager(_ arguments: [String]) -> Int32 {
    var changes = 0
    var deadline = Duration.seconds(10)
    var index = 0
    while index < arguments.count {
        guard index + 1 < arguments.count else { usage("\(arguments[index]) needs a value") }
        switch arguments[index] {
        case "--changes":
            guard let count = Int(arguments[index + 1]), count >= 0 else { usage("--changes wants a count") }
            changes = count
        case "--deadline": deadline = duration(arguments[index + 1], for: "--deadline")
        default: usage("unexpected \(arguments[index])")
        }
        index += 2
    }
    guard changes > 0 else {
        print(describe(SystemBusNetworkManager().currentStatus()))
        return 0
    }
    let monitor = NetworkManagerMonitor()
    print(describe(monitor.status))
    fflush(nil)
    let end = ContinuousClock().now + deadline
    var seen = 0
    while seen < changes {
        let left = end - ContinuousClock().now
        guard left > .zero, monitor.descriptor >= 0 else { return ExitCode.temporaryFailure.rawValue }
        var descriptor = pollfd(fd: monitor.descriptor, events: Int16(POLLIN), revents: 0)
        guard poll(&descriptor, 1, PathWatcher.milliseconds(rounding: left)) > 0 else { continue }
        if monitor.refresh() {
            seen += 1
            print(describe(monitor.status))
            fflush(nil)
        }
    }
    return 0
}

let arguments = Array(CommandLine.arguments.dropFirst())
guard let command = arguments.first else { usage("missing command") }
let rest = Array(arguments.dropFirst())
let status: Int32
switch command {
case "request": status = request(rest)
case "probe": status = probe(rest)
case "wait-path": status = waitPath(rest)
case "networkmanager": status = networkManager(rest)
default: usage("unknown command \(command)")
}
exit(status)
