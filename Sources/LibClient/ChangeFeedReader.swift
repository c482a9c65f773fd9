import LibBase
import LibJSON
import LibNet

/// Reads the server's change feed, `GET /v1/changes` (docs/PROTOCOL.md),
/// for `lib pull`. As with every read, only what proves it is the library
/// server's comes back: a page is `application/json` with `items` (each a
/// valid book id, an ETag, and a valid book with that id or null) and a
/// `next` cursor; anything else is "not from the library server", a
/// temporary failure.
public struct ChangeFeedReader {
    /// One book that changed: its document as it is now (nil: deleted).
    public struct Change: Sendable, Equatable {
        public let id: String
        public let etag: String
        public let body: String?
    }

    public enum Answer: Sendable, Equatable {
        /// Changes after the cursor, the cursor to ask from next, and whether
        /// there may be more right away (a full page).
        case page(changes: [Change], next: String, more: Bool)
        /// 410: the cursor is older than what the server keeps; list again.
        case gone
        /// 404: a server without a change feed; list every time.
        case unsupported
        /// 400 to a stored cursor: the server will not read from it (the
        /// problem's detail); list again.
        case refused(String)
    }

    /// Changes asked for per page: the server's maximum.
    public static let pageSize = 1000

    /// The reads' server, book rules and explanations: the feed is read as
    /// every other read is.
    let reads: ResourceFetcher
    var api: ServerAPI { reads.api }
    var rules: BookRules { reads.rules }

    public init(_ reads: ResourceFetcher) {
        self.reads = reads
    }

    func explain(_ failure: TransportFailure) -> CommandFailure { reads.explain(failure) }

    /// A cursor for "now" (taken before a full listing); nil for a server without a feed.
    public func now(meter: PullMeter) throws -> String? {
        switch try read("/v1/changes", meter: meter) {
        case .page(_, let next, _): return next
        case .gone: throw notFromServer("410 for a request without a cursor")
        case .refused: throw notFromServer("400 for a request without a cursor")
        case .unsupported: return nil
        }
    }

    /// The changes after `cursor`. A page larger than the answer limit is
    /// asked for again in halves, as a listing's is. Every answer counts
    /// against the pull's `meter`.
    public func changes(since cursor: String, meter: PullMeter) throws -> Answer {
        var limit = Self.pageSize
        while true {
            do {
                return try read("/v1/changes?limit=\(limit)&since=" + Self.queryEscaped(cursor), limit: limit, meter: meter)
            } catch let failure as TransportFailure {
                guard case .answerTooLarge = failure.kind, limit > 1 else { throw explain(failure) }
                limit /= 2
            }
        }
    }

    private func read(_ target: String, limit: Int = pageSize, meter: PullMeter) throws -> Answer {
        let answer: HTTPResponse
        do {
            answer = try api.send("GET", target)
            if let failure = api.failure(for: answer) { throw failure }
        } catch let failure as TransportFailure {
            if case .answerTooLarge = failure.kind, target.contains("since=") { throw failure }
            throw explain(failure)
        }
        try meter.spend(answer.body.count)
        switch answer.status {
        case 200: break
        case 410 where answer.isProblemJSON: return .gone
        case 404 where answer.isProblemJSON: return .unsupported
        case 400 where answer.isProblemJSON && target.contains("since="): return .refused(answer.problemDetail)
        default:
            if !answer.isProblemJSON { throw notFromServer(answer.seen) }
            throw CommandFailure("\(api.endpoint.hostAndPort) answered GET \(target) with \(answer.status): \(answer.problemDetail)")
        }
        guard answer.mediaType == "application/json" else { throw notFromServer(answer.seen + " where a list of changes was expected") }
        guard let page = answer.json?.objectValue, let items = page["items"]?.arrayValue, let next = page["next"]?.stringValue,
              !next.isEmpty else {
            throw notFromServer("200 with " + (answer.json == nil ? "cut or invalid JSON" : "JSON that is not a list of changes"))
        }
        // Kept in the store and sent back: a cursor longer than any server's
        // is refused before it is either.
        guard next.utf8.count <= PullBudget.maxCursorBytes else {
            throw notFromServer("a cursor of \(next.utf8.count) bytes, longer than the \(PullBudget.maxCursorBytes) bytes lib keeps")
        }
        var changes: [Change] = []
        changes.reserveCapacity(items.count)
        for item in items {
            guard let id = item["id"]?.stringValue, ResourcePath.isValidID(id), let etag = item["etag"]?.stringValue, !etag.isEmpty,
                  let document = item["document"] else {
                throw notFromServer("a list of changes with an item that is not a book's change")
            }
            if document.isNull {
                changes.append(Change(id: id, etag: etag, body: nil))
                continue
            }
            if let problem = ServedBook.problem(in: document, id: id, rules: rules) { throw notFromServer("a change with \(problem)") }
            changes.append(Change(id: id, etag: etag, body: document.serialized()))
        }
        return .page(changes: changes, next: next, more: changes.count >= limit)
    }

    /// A cursor is opaque: whatever it holds goes into the query escaped.
    static func queryEscaped(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                out += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return out
    }

    private func notFromServer(_ seen: String) -> CommandFailure {
        explain(TransportFailure(kind: .notFromLibraryServer(seen: seen), endpoint: api.endpoint))
    }
}

private extension String {
    func leftPadded(to width: Int) -> String { count >= width ? self : String(repeating: "0", count: width - count) + self }
}
