import LibBase
import LibJSON

/// The server's mass-change guard (docs/PROTOCOL.md, "The mass-change
/// guard"): one request whose writes would delete, or blank a field of,
/// more books than `MassChangeGuard` allows for the library's live books
/// is refused whole (422), nothing applied, unless it carries
/// `Lib-Confirm-Mass-Change: 1`. Checked in the write's own transaction,
/// against the books as that transaction reads them.
enum MassChangeCheck {
    /// The refusal of `items`, or nil when they pass. `book` reads a book
    /// as the transaction has it (nil: never written).
    static func problem(_ items: [WriteItem], guard rule: MassChangeGuard, liveBooks: () throws -> Int,
                        book: (String) throws -> BookRecord?) throws -> Problem? {
        // Fewer items than the guard always allows cannot be too many: no book is read for them.
        guard Set(items.map(\.id)).count > rule.books else { return nil }
        var destructive: Set<String> = []
        for item in items where !destructive.contains(item.id) {
            guard let before = try book(item.id)?.document else { continue }
            if MassChangeGuard.isDestructive(before: before, after: after(item.change, appliedTo: before)) {
                destructive.insert(item.id)
            }
        }
        guard destructive.count > rule.books else { return nil }
        let books = try liveBooks()
        guard rule.refuses(destructive.count, ofTotal: books) else { return nil }
        return refusal(destructive: destructive.count, books: books, allowed: rule.allowed(ofTotal: books))
    }

    /// The book after the change, taken as sent (a merge on the server keeps
    /// others' fields, never brings back one the change blanks).
    private static func after(_ change: WriteItem.Change, appliedTo document: JSONObject) -> JSONObject? {
        switch change {
        case .put(let new, _): return new
        case .delete: return nil
        case .update(let update):
            var result = document
            for name in update.remove { result[name] = nil }
            for (name, value) in update.set { result[name] = value }
            return result
        }
    }

    static func refusal(destructive: Int, books: Int, allowed: Int) -> Problem {
        var problem = Problem(status: 422, detail: """
            This request would delete or blank fields of \(Wording.number(destructive)) of \(Wording.count(books, "book")) \
            (this server allows \(Wording.number(allowed)) in one request); nothing was applied. \
            Send it with \(MassChangeGuard.confirmHeader): 1 if it is meant.
            """)
        problem.type = MassChangeGuard.problemType
        problem.extra = [("destructive_books", .integer(Int64(destructive))), ("books", .integer(Int64(books))),
                         ("allowed", .integer(Int64(allowed)))]
        return problem
    }

    /// Whether the request confirms a mass change (`lib push --force`).
    static func isConfirmed(_ value: String?) -> Bool {
        value?.trimmingSpacesAndTabs() == "1"
    }
}
