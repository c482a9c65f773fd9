import LibBookSchema
import LibHTTP
import LibJSON

/// What a write comes to against its book as it is now: the one place that
/// decides, for both protocols, between writing, 404, 412 and the 422 of an
/// update whose result breaks the schema.
enum WriteVerdict {
    /// Write this document (nil: delete the book), answered with `status`.
    /// `mergedOver`: the version an update was made against, when it is
    /// applied on top of a newer one (the answer names what changed between).
    case write(JSONObject?, status: Int, mergedOver: EntityTag?)
    /// A delete of a book that is not there: 404 before any precondition,
    /// as there is no resource to hold a condition against.
    case notFound
    case preconditionFailed(PreconditionFailure)
    /// Not kept for the key: the same update may pass against a later version.
    case invalid([FieldProblem])

    /// `book`: the book's row (a deleted book's too), nil when it never existed.
    static func of(_ item: WriteItem, against book: BookRecord?, schema: BookSchema) -> WriteVerdict {
        let live = book?.exists == true ? book : nil
        let liveTag = live.flatMap { EntityTag(parsing: $0.etag) }
        switch item.change {
        case .put(let document, let conditions):
            if case .failed(let field) = conditions.evaluate(method: "PUT", current: liveTag) {
                return .preconditionFailed(PreconditionFailure(book: book, failedField: field))
            }
            return .write(BookValidation.normalized(document, id: item.id), status: live == nil ? 201 : 200, mergedOver: nil)
        case .delete(let conditions):
            guard live != nil else { return .notFound }
            if case .failed(let field) = conditions.evaluate(method: "DELETE", current: liveTag) {
                return .preconditionFailed(PreconditionFailure(book: book, failedField: field))
            }
            return .write(nil, status: 204, mergedOver: nil)
        case .update(let update):
            guard let live, let current = live.document else {
                return .preconditionFailed(PreconditionFailure(reason: .deleted, book: book, clashes: update.changedFields))
            }
            switch FieldPrecondition.decide(update, current: live) {
            case .clash(let fields):
                return .preconditionFailed(PreconditionFailure(reason: fields.isEmpty ? .changed : .clashed(fields),
                                                               book: book, clashes: fields))
            case .apply(let merged):
                let document = FieldPrecondition.applied(update, to: current)
                let problems = schema.problems(in: document, id: item.id)
                guard problems.isEmpty else { return .invalid(problems) }
                return .write(BookValidation.normalized(document, id: item.id), status: 200,
                              mergedOver: merged ? update.madeAgainst : nil)
            }
        }
    }
}

/// A 412: why the write was not applied, and the book as it is.
struct PreconditionFailure {
    enum Reason: Equatable {
        /// It has another version than the one the write names.
        case changed
        /// A create, and the book exists.
        case exists
        case deleted
        /// The write names a version of a book that never existed.
        case neverExisted
        /// An update, and someone else changed these fields it changes.
        case clashed([String])
    }

    let reason: Reason
    /// The book's row (a deleted book's too).
    let book: BookRecord?
    /// The fields that clash (protocol v2 names them; empty when the whole version is what failed).
    let clashes: [String]

    /// The book as the answer shows it: `current` and `current_etag`, and the `ETag` header.
    var live: BookRecord? { book?.exists == true ? book : nil }

    init(reason: Reason, book: BookRecord?, clashes: [String] = []) {
        self.reason = reason
        self.book = book
        self.clashes = clashes
    }

    /// After RFC 9110's evaluation failed on `field` (`If-Match` or `If-None-Match`).
    init(book: BookRecord?, failedField field: String) {
        let reason: Reason = if book == nil { .neverExisted } else if book?.exists != true { .deleted }
            else if field == "If-None-Match" { .exists } else { .changed }
        self.init(reason: reason, book: book)
    }

    /// The 412's `detail`; each protocol names its own way to update.
    func detail(id: String, wire: WriteWire) -> String {
        let etag = book?.etag ?? ""
        switch reason {
        case .neverExisted: return "There is no book '\(id)' yet; create it with If-None-Match: *"
        case .deleted: return "Book '\(id)' no longer exists: it was deleted"
        case .exists: return "Book '\(id)' already exists (version \(etag)); update it \(wire.howToUpdate)instead"
        case .changed: return "Book '\(id)' has changed since that version; its current version is \(etag)"
        case .clashed(let fields):
            return "Book '\(id)' has changed since that version: someone else changed \(fields.joined(separator: ", "))"
        }
    }
}
