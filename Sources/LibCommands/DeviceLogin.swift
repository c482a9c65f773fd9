#if canImport(Glibc)
import Glibc
#endif
import LibBase
import LibCLI
import LibClient
import LibJSON
import LibNet

/// `lib login --device`'s wait (RFC 8628): asks the server for a code
/// pair, says where to approve the code, and polls until a token comes,
/// the sign-in is denied, or the code expires. The token then goes the way
/// of any token login (`Login.run`).
enum DeviceLogin {
    /// Polls lib makes at most, whatever the server says.
    static let maxPolls = 200

    static func waitForToken(server: ServerOrigin, _ context: CommandContext) throws -> String {
        let client = DeviceSignInClient(api: ServerAPI(transport: context.makeTransport(), origin: server, token: nil))
        let pair: DeviceSignInClient.CodePair
        switch try client.requestCode() {
        case .codes(let codes): pair = codes
        case .notOffered: throw CommandFailure("\(server.hostAndPort) does not offer device sign-in; sign in with a password instead")
        }
        announce(pair, context)

        // The budget is lib's own: the code's lifetime on this device's
        // clock, and a number of polls, so that a server that never decides
        // (or keeps saying slow down by nothing) cannot keep lib here.
        let deadline = MonotonicClock.now() + Double(pair.expiresIn)
        var interval = Double(pair.interval)
        for _ in 0..<maxPolls {
            let left = deadline - MonotonicClock.now()
            guard left > 0 else { break }
            sleep(min(interval, left))
            switch try client.poll(deviceCode: pair.deviceCode) {
            case .token(let token): return token
            case .pending: continue
            case .slowDown: interval += 5
            case .denied: throw CommandFailure("The sign-in was denied", exitCode: .authentication)
            case .expired: throw expired
            }
        }
        throw expired
    }

    private static let expired = CommandFailure("The code expired; run lib login --device again", exitCode: .authentication)

    /// Where to approve the code: a line on standard error, or with --json
    /// a one-line document on standard output (the login's own follows).
    private static func announce(_ pair: DeviceSignInClient.CodePair, _ context: CommandContext) {
        let code = TerminalText.escaped(pair.userCode), page = TerminalText.escaped(pair.verificationURI)
        let minutes = (pair.expiresIn + 59) / 60
        if context.globalOptions.json {
            let document: JSONValue = [
                "user_code": .string(pair.userCode), "verification_uri": .string(pair.verificationURI),
                "verification_uri_complete": pair.verificationURIComplete.map(JSONValue.string) ?? .null,
                "expires_in": .integer(Int64(pair.expiresIn)),
            ]
            context.standardOutput.write(document.serialized() + "\n")
            context.standardOutput.flush()
        } else {
            context.standardError.write("To sign in, open \(page) and enter the code \(code) "
                                        + "(or run `lib device approve \(code)` where lib is signed in). "
                                        + "Waiting… (expires in \(minutes) min)\n")
            context.standardError.flush()
        }
    }

    private static func sleep(_ seconds: Double) {
        guard seconds > 0 else { return }
        var request = timespec(tv_sec: Int(seconds), tv_nsec: Int((seconds - Double(Int(seconds))) * 1_000_000_000))
        var remaining = timespec()
        while nanosleep(&request, &remaining) != 0 && errno == EINTR { request = remaining }
    }
}
