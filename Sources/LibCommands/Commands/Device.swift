import LibAccounts
import LibBase
import LibCLI
import LibClient
import LibJSON

/// `lib device approve CODE`: signs in another device, one that ran `lib
/// login --device`, as this account's user, without a password typed on it.
enum Device: Verb {
    static let name = "device"

    static let action = ArgumentSpec("ACTION", .choice(["approve"]), .required, "What to do: approve")
    static let code = ArgumentSpec("CODE", .text, .required, "The code the other device shows, as XXXX-XXXX")

    static let command = CommandSpec(
        name: name, summary: "Approve another device's sign-in (lib login --device)",
        discussion: """
            lib device approve CODE signs in the device that shows CODE (after \
            lib login SERVER_URL --device) as the user of the account in effect \
            (-A to choose another), with this account's token: no password is \
            typed on that device. The code is case-blind; the dash may be left \
            out. A code works once, for 15 minutes. Approve only a code you \
            asked for yourself, on a device in front of you: that device gets a \
            session of its own, which lib logout there ends.
            """,
        arguments: [action, code],
        examples: [
            .init("lib device approve BDFG-HJKL", "Sign in the device showing BDFG-HJKL as you."),
            .init("lib -A alice@library.example.org device approve bdfghjkl", "The same, as alice."),
        ],
        exitStatuses: .usual(success: "The device is signed in.", also: [
            .init(.failure, "No device waits for that code, or it expired or was used."),
            .init(.authentication, "Not signed in here, or the token was refused."),
            .init(.temporaryFailure),
        ]))

    struct Options {
        var code: String
    }

    static func options(_ parsed: ParsedCommand) throws -> Options {
        Options(code: parsed.argument(code) ?? "")
    }

    static func runsOnline(_ options: Options) -> Bool { true }

    static func run(_ options: Options, _ context: CommandContext) throws -> ExitCode {
        let workspace = try AccountWorkspace(context)
        let client = DeviceSignInClient(api: workspace.api(token: try workspace.token()))
        let host = workspace.account.origin.hostAndPort
        let answer: DeviceSignInClient.ApproveAnswer
        do {
            answer = try client.approve(userCode: options.code)
        } catch {
            throw workspace.explained(error)
        }
        switch answer {
        case .approved(let username):
            if context.globalOptions.json {
                let document: JSONValue = ["account": .string(workspace.name), "user_code": .string(options.code.uppercased()),
                                           "approved": true, "username": .string(username)]
                context.standardOutput.write(document.prettyPrinted() + "\n")
            } else if !context.globalOptions.quiet {
                context.standardOutput.write("Approved: the device is signed in to \(host) as \(username).\n")
            }
            return .success
        case .unknown(let detail), .expired(let detail), .decided(let detail):
            throw CommandFailure("\(host): \(TerminalText.escaped(detail))")
        case .notOffered:
            throw CommandFailure("\(host) does not offer device sign-in (lib-server --no-device-grant)")
        }
    }
}
