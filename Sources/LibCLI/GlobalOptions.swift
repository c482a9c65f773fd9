/// The global options of one invocation, given anywhere on the line.
public struct GlobalOptions: Sendable, Equatable {
    /// `-A/--account ACCOUNT`, as typed (resolving it is the account store's job).
    public var account: String?
    /// `--json`: stable machine output.
    public var json: Bool
    /// `-q/--quiet`: nothing but problems.
    public var quiet: Bool
    /// `--no-color`.
    public var noColor: Bool
    /// How many times `-v` was given.
    public var verbosity: Int

    public init(account: String? = nil, json: Bool = false, quiet: Bool = false, noColor: Bool = false, verbosity: Int = 0) {
        self.account = account
        self.json = json
        self.quiet = quiet
        self.noColor = noColor
        self.verbosity = verbosity
    }
}
