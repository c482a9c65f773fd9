import LibAccounts
import LibBookSchema
import LibCLI
import LibSync
import LibClient

/// Offers the document paths cached for the account the command line names,
/// for `lib __complete paths` (every TAB), and the signed-in accounts: the
/// store and the accounts index read only, never the network, D-Bus or the
/// keyring. Any problem offers nothing.
public struct CacheCompletionSource: CompletionSource {
    public init() {}

    public func resourcePaths(startingWith prefix: String, context: CommandContext) -> [String] {
        guard let workspace = try? AccountWorkspace(context),
              let store = try? AccountStore(readingFrom: workspace.paths.storePath(workspace.name)),
              let cached = try? store.cache.paths(withPrefix: prefix)
        else { return [] }
        return cached
    }

    /// The names and aliases in the accounts index, read as every command reads it.
    public func accountNames(startingWith prefix: String, context: CommandContext) -> [String] {
        guard let directories = try? context.directories, let index = try? AccountIndex.load(from: directories.config) else { return [] }
        return index.accounts.flatMap { [$0.name] + ($0.alias.map { [$0] } ?? []) }.filter { $0.hasPrefix(prefix) }
    }
}

extension CacheCompletionSource {
    /// The fields of the schema the account's server served (the built-in
    /// one before any was fetched), each as `FIELD=` and `FIELD:=`; not
    /// `id`, which a book's path fixes (an edit cannot change it).
    public func fieldAssignments(startingWith prefix: String, context: CommandContext) -> [String] {
        let store = (try? AccountWorkspace(context)).flatMap { try? AccountStore(readingFrom: $0.paths.storePath($0.name)) }
        let fields = store.flatMap { try? BookRules.forAccount($0) }?.fields ?? BuiltInBookSchema.schema.fields
        return fields.filter { $0 != "id" }.flatMap { [$0 + "=", $0 + ":="] }.filter { $0.hasPrefix(prefix) }
    }

    /// What each command's PATH may be: `resolve` the documents with a
    /// conflict, `revert` those this device pushed (the latest first), `get`
    /// the collection too; each with its title as this device knows it.
    public func paths(_ topic: CompleteSyntax.Topic, startingWith prefix: String,
                      context: CommandContext) -> [(path: String, title: String?)] {
        guard let workspace = try? AccountWorkspace(context),
              let store = try? AccountStore(readingFrom: workspace.paths.storePath(workspace.name))
        else { return [] }
        let limit = 200
        var paths: [String]
        switch topic {
        case .conflicts:
            paths = ((try? store.outbox.all()) ?? []).filter { $0.status == .conflict }.map(\.path)
        case .pushed:
            paths = ((try? store.pushedLog.entries(limit: 1_000)) ?? []).map(\.path)
        case .resources:
            let collection = "books"
            paths = (collection.hasPrefix(prefix) ? [collection] : [])
                + ((try? store.cache.paths(withPrefix: prefix, limit: limit)) ?? [])
        default:
            paths = (try? store.cache.paths(withPrefix: prefix, limit: limit)) ?? []
        }
        var seen = Set<String>()
        paths = paths.filter { $0.hasPrefix(prefix) && seen.insert($0).inserted }
        return paths.prefix(limit).map { path in
            let title = (try? store.cache.document(at: path))?.json?["title"]?.stringValue
            return (path, title)
        }
    }
}
