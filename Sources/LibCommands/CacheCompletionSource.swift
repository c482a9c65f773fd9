import LibCLI
import LibSync

/// Offers the document paths cached for the account the command line names,
/// for `lib __complete paths` (every TAB): the store opened read-only,
/// never the network, D-Bus or the keyring. Any problem offers nothing.
public struct CacheCompletionSource: CompletionSource {
    public init() {}

    public func resourcePaths(startingWith prefix: String, context: CommandContext) -> [String] {
        guard let workspace = try? AccountWorkspace(context),
              let store = try? AccountStore(readingFrom: workspace.paths.storePath(workspace.name)),
              let cached = try? store.cache.paths(withPrefix: prefix)
        else { return [] }
        return cached
    }
}
