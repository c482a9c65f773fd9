import LibJSON

/// The mass-change guard (issue 48), one rule for `lib push` and for the
/// server: writes that would delete, or blank a field of, more than
/// max(`books`, `percent` % of the library's books) books are refused
/// whole, before anything is applied, unless the user confirmed them
/// (`lib push --force`, the `Lib-Confirm-Mass-Change` header).
///
/// A write is destructive when it deletes a book, or when a field that had
/// a value (anything but null, "" or []) is removed or set to one of those.
/// A book counts once however many of its fields or writes do that.
public struct MassChangeGuard: Sendable, Equatable {
    /// N: this many destructive books always pass (a small library can be emptied).
    public var books: Int
    /// p: so does this percentage of the library's books, when that is more.
    public var percent: Int

    public init(books: Int, percent: Int) {
        self.books = books
        self.percent = percent
    }

    /// N = 20 books, p = 20 %: 25 deletes of 1,000 books pass, 300 do not.
    public static let standard = MassChangeGuard(books: 20, percent: 20)

    /// The request header that confirms a mass change (`lib push --force` sends it).
    public static let confirmHeader = "Lib-Confirm-Mass-Change"
    /// The problem type of the server's refusal (a 422 to the whole request).
    public static let problemType = "https://lib.example/problems/mass-change"

    /// How many destructive books the guard lets through for a library of `total` books.
    public func allowed(ofTotal total: Int) -> Int {
        max(books, max(0, total) * percent / 100)
    }

    /// Whether `destructive` books out of `total` are too many.
    public func refuses(_ destructive: Int, ofTotal total: Int) -> Bool {
        destructive > allowed(ofTotal: total)
    }

    /// Whether turning `before` (nil: no such book) into `after` (nil: deleted)
    /// deletes the book or blanks a field that had a value.
    public static func isDestructive(before: JSONObject?, after: JSONObject?) -> Bool {
        guard let before else { return false }
        guard let after else { return true }
        return before.contains { name, value in !isBlank(value) && isBlank(after[name]) }
    }

    /// Missing, null, "" or []: no value.
    public static func isBlank(_ value: JSONValue?) -> Bool {
        switch value {
        case nil, .null?: true
        case .string(let text)?: text.isEmpty
        case .array(let items)?: items.isEmpty
        default: false
        }
    }

    /// A setting of the guard could not be read.
    public struct SettingError: Error, CustomStringConvertible {
        public let description: String
    }

    /// `BOOKS,PERCENT` (`50,30`) or `off` (nil: no guard), as `LIB_GUARD` takes it.
    public static func parse(_ text: String, from name: String) throws -> MassChangeGuard? {
        let trimmed = text.trimmingWhitespace()
        if trimmed.lowercased() == "off" { return nil }
        let parts = trimmed.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 2, let books = count(parts[0]), let percent = count(parts[1]) else {
            throw SettingError(description: "\(name)=\(text) is not BOOKS,PERCENT (such as 20,20) or off")
        }
        guard percent <= 100 else {
            throw SettingError(description: "\(name)=\(text): the percentage \(percent) is over 100")
        }
        return MassChangeGuard(books: books, percent: percent)
    }

    /// A count of 0 to 1,000,000,000 written in ASCII digits.
    private static func count(_ text: Substring) -> Int? {
        let digits = text.trimmingWhitespace()
        guard !digits.isEmpty, digits.count <= 10, digits.allSatisfy({ $0 >= "0" && $0 <= "9" }),
              let value = Int(digits), value <= 1_000_000_000 else { return nil }
        return value
    }
}
