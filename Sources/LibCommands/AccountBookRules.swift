import LibBookSchema
import LibClient
import LibSync

extension BookRules {
    /// The account's stored schema; the built-in one when none was fetched
    /// yet or the stored text cannot be applied.
    static func forAccount(_ store: AccountStore) throws -> BookRules {
        guard let stored = try store.cache.serverDocument(.bookSchema), let schema = try? BookSchema(text: stored.text) else {
            return builtIn
        }
        return BookRules(schema: schema)
    }
}
