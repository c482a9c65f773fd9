import LibBase
import LibJSON
import LibNet

/// The server's mass-change guard refusing a whole batch: a 422 problem of
/// type `MassChangeGuard.problemType` with the counts it refused
/// (docs/PROTOCOL.md, "The mass-change guard").
public struct MassChangeProblem: Sendable, Equatable {
    /// Books the batch would delete or blank a field of.
    public var destructive: Int
    /// The server's live books.
    public var books: Int
    /// How many the server's guard allows for one request.
    public var allowed: Int

    public init(destructive: Int, books: Int, allowed: Int) {
        self.destructive = destructive
        self.books = books
        self.allowed = allowed
    }

    /// The refusal `response` is, or nil when it is anything else.
    public init?(_ response: HTTPResponse) {
        guard response.status == 422, response.isJSON, let problem = response.json?.objectValue,
              problem["type"]?.stringValue == MassChangeGuard.problemType,
              let destructive = problem["destructive_books"]?.integerValue, destructive >= 0,
              let books = problem["books"]?.integerValue, books >= 0,
              let allowed = problem["allowed"]?.integerValue, allowed >= 0
        else { return nil }
        self.init(destructive: Int(clamping: destructive), books: Int(clamping: books), allowed: Int(clamping: allowed))
    }
}
