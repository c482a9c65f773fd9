import LibBookSchema
import LibJSON

/// What a write came to, once applied or refused by its preconditions: the
/// outcome its idempotency key records and replays.
enum WriteOutcome {
    /// `book`: its new state (no document: deleted).
    case written(BookRecord, status: Int, merged: MergeNote?)
    case notFound
    case preconditionFailed(PreconditionFailure)
}

/// The protocol a write came by, which lays out its recorded answer: v1's
/// is the HTTP answer itself (a document or a problem, `current` beside a
/// 412's problem members); v2's is the members of the item's result
/// (`document` and `merged`, or `problem` with `clashes`, and `current`).
/// What the answer says is decided once (`WriteVerdict`,
/// `PreconditionFailure`); only its layout and wording are the protocol's.
/// Both layouts are kept in the idempotency table for a day: changing one
/// changes what a retry of an older write replays.
enum WriteWire {
    case v1
    case v2

    func recorded(_ outcome: WriteOutcome, of item: WriteItem) -> RecordedAnswer {
        let hash = item.requestHash
        switch outcome {
        case .written(let book, let status, let merged):
            let body: [UInt8] = switch self {
            case .v1: book.document.map { JSONValue.object($0).utf8Bytes } ?? []
            case .v2: BatchResult.body(document: book.document, merged: merged)
            }
            return RecordedAnswer(requestHash: hash, status: status, etag: book.exists ? book.etag : nil, body: body)
        case .notFound:
            let problem = Problem.notFound("There is no book '\(item.id)'")
            return RecordedAnswer(requestHash: hash, status: 404, etag: nil,
                                  body: self == .v1 ? problem.json.utf8Bytes : BatchResult.body(problem: problem))
        case .preconditionFailed(let failure):
            var problem = Problem(status: 412, detail: failure.detail(id: item.id, wire: self))
            let current: [(String, JSONValue)] = [("current", failure.live?.document.map { .object($0) } ?? .null),
                                                  ("current_etag", failure.live.map { .string($0.etag) } ?? .null)]
            let body: [UInt8]
            switch self {
            case .v1:
                problem.extra = current
                body = problem.json.utf8Bytes
            case .v2:
                problem.extra = [("clashes", .array(failure.clashes.map { .string($0) }))]
                body = BatchResult.body(problem: problem, beside: current)
            }
            return RecordedAnswer(requestHash: hash, status: 412, etag: failure.live?.etag, body: body)
        }
    }

    /// How a 412 for a create of an existing book says to update it.
    var howToUpdate: String { self == .v1 ? "with If-Match " : "" }

    var keyReused: Problem {
        switch self {
        case .v1: .unprocessable("This Idempotency-Key was already used for a different request; use a new key for a new write")
        case .v2: .unprocessable("This key was already used for a different write; use a new key for a new write")
        }
    }

    var keyInFlight: Problem {
        switch self {
        case .v1: Problem(status: 409, detail: "A request with this Idempotency-Key is still being processed; retry later")
        case .v2: Problem(status: 409, detail: "A request with this key is still being processed; retry later")
        }
    }
}

extension Problem {
    /// A 422 for a book that breaks the schema, naming each field's problem.
    static func invalidBook(_ problems: [FieldProblem]) -> Problem {
        .unprocessable("The book is invalid: " + problems.map(\.sentence).joined(separator: "; "), problems: problems)
    }
}
