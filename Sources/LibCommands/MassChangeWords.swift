import LibBase
import LibCLI
import LibJSON
import LibSync

/// The mass-change guard as `lib` configures and words it: `LIB_GUARD`
/// (`BOOKS,PERCENT` or `off`, default `MassChangeGuard.standard`), the
/// refusal's sentence, and what `lib status` and `lib doctor` say of a
/// refusal kept in the store.
enum MassChangeWords {
    static let variable = "LIB_GUARD"

    /// The guard `LIB_GUARD` sets (nil: off); a value that is not the
    /// documented form is a usage error naming it, never a silent default.
    static func configured(_ context: CommandContext) throws -> MassChangeGuard? {
        guard let text = context.environment[variable] else { return .standard }
        do {
            return try MassChangeGuard.parse(text, from: variable)
        } catch let error as MassChangeGuard.SettingError {
            throw CommandFailure(error.description, exitCode: .usage)
        }
    }

    /// "Not pushing: these writes would delete or blank fields of 312 of
    /// 1,000 books (the guard allows 200). Nothing was sent. If you mean it:
    /// lib push --force"
    static func refusal(_ refusal: MassChangeRefusal, lib: String) -> String {
        let whose = refusal.byServer ? "the server's guard" : "the guard"
        let books = refusal.byServer ? "the server's \(Wording.count(refusal.books, "book"))" : Wording.count(refusal.books, "book")
        return "Not pushing: these writes would delete or blank fields of \(Wording.number(refusal.destructive)) of \(books) "
            + "(\(whose) allows \(Wording.number(refusal.allowed))). Nothing was sent. If you mean it: \(lib) push --force"
    }

    /// What `lib status` and `lib doctor` say while a refusal is kept.
    static func kept(_ refusal: MassChangeRefusal, lib: String) -> String {
        "push refused by the mass-change guard: \(Wording.count(refusal.destructive, "book")) (run \(lib) push --force if you mean it)"
    }

    /// `{destructive_books, books, allowed, by}` for `push --json` and `status --json`.
    static func json(_ refusal: MassChangeRefusal) -> JSONValue {
        .object(JSONObject([
            ("destructive_books", .integer(Int64(refusal.destructive))), ("books", .integer(Int64(refusal.books))),
            ("allowed", .integer(Int64(refusal.allowed))), ("by", .string(refusal.byServer ? "server" : "client")),
        ]))
    }
}
