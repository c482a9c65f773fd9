/// Where `lib __complete paths` finds resource paths to offer. The cache
/// issue supplies one that reads the account's SQLite cache; until then,
/// `NoResourcePaths`. An implementation reads local files only: never the
/// network, D-Bus or the keyring (completion runs on every TAB).
public protocol CompletionSource: Sendable {
    /// Cached resource paths that start with `prefix`, for the account the
    /// context names.
    func resourcePaths(startingWith prefix: String, context: CommandContext) -> [String]
    /// `FIELD=` and `FIELD:=` for each field a book may have, that start with `prefix`.
    func fieldAssignments(startingWith prefix: String, context: CommandContext) -> [String]
    /// The paths of a topic (paths, resources, conflicts, pushed) that start
    /// with `prefix`, each with its book's title when it has one.
    func paths(_ topic: CompleteSyntax.Topic, startingWith prefix: String, context: CommandContext) -> [(path: String, title: String?)]
    /// The signed-in accounts' names that start with `prefix`, in the index's order.
    func accountNames(startingWith prefix: String, context: CommandContext) -> [String]
}

extension CompletionSource {
    public func fieldAssignments(startingWith prefix: String, context: CommandContext) -> [String] { [] }
    public func accountNames(startingWith prefix: String, context: CommandContext) -> [String] { [] }

    public func paths(_ topic: CompleteSyntax.Topic, startingWith prefix: String, context: CommandContext) -> [(path: String, title: String?)] {
        topic == .paths ? resourcePaths(startingWith: prefix, context: context).map { ($0, nil) } : []
    }
}

/// Offers no resource paths.
public struct NoResourcePaths: CompletionSource {
    public init() {}

    public func resourcePaths(startingWith prefix: String, context: CommandContext) -> [String] { [] }
}
