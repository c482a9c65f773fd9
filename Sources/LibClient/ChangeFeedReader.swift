import LibBase
import LibJSON
import LibNet

/// Reads the server's change feed, `GET /v1/changes` (docs/PROTOCOL.md),
/// one page at a time. As with every read, only what `LibraryServerProof`
/// proves is the library server's comes back.
public struct ChangeFeedReader: Sendable {
    public enum Answer: Sendable, Equatable {
        /// Changes after the cursor, the cursor to ask from next, and whether
        /// there is more right away (the page's `more`; from a server
        /// before it, a full page).
        case page(FeedPage, more: Bool)
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

    public let api: ServerAPI
    public let rules: BookRules

    public init(api: ServerAPI, rules: BookRules = .builtIn) {
        self.api = api
        self.rules = rules
    }

    /// A cursor for "now" (taken before a full listing), with the answer's
    /// size; a nil cursor for a server without a feed.
    public func now() throws(RequestFailure) -> (cursor: String?, bytes: Int) {
        let answer = try api.read("/v1/changes")
        switch try read(answer, target: "/v1/changes", limit: Self.pageSize) {
        case .page(let page, _): return (page.next, page.bytes)
        case .unsupported: return (nil, answer.body.count)
        case .gone, .refused: throw .notFromServer("\(answer.status) for a request without a cursor", api, answer)
        }
    }

    /// The changes after `cursor`. A page larger than the answer limit is
    /// asked for again in halves, as a listing's is.
    public func changes(since cursor: String) throws(RequestFailure) -> Answer {
        var limit = Self.pageSize
        while true {
            let target = "/v1/changes?limit=\(limit)&since=" + Self.queryEscaped(cursor)
            do {
                return try read(try api.read(target), target: target, limit: limit, since: true)
            } catch .transport(let failure) where failure.kind.isAnswerTooLarge && limit > 1 {
                limit /= 2
            }
        }
    }

    private func read(_ answer: HTTPResponse, target: String, limit: Int, since: Bool = false) throws(RequestFailure) -> Answer {
        switch answer.status {
        case 200: break
        case 410 where answer.isProblemJSON: return .gone
        case 404 where answer.isProblemJSON: return .unsupported
        case 400 where answer.isProblemJSON && since: return .refused(answer.problemDetail)
        default: throw api.unexpected(answer, to: "GET \(target)")
        }
        do {
            let page = try LibraryServerProof.feedPage(answer, rules: rules)
            return .page(page, more: page.more ?? (page.changes.count >= limit))
        } catch {
            throw .notFromServer(error.seen, api, answer)
        }
    }

    /// `GET /v1/changes?limit=1&wait=S&since=C`: whether something changed
    /// after `cursor` within `wait` seconds. A cursor the server refuses or
    /// no longer has counts as a change (the pull lists again). Only a hint
    /// to pull: what the pull stores is proven as always.
    public func waitForChange(since cursor: String, wait: Int) throws(RequestFailure) -> Bool {
        let target = "/v1/changes?limit=1&wait=\(wait)&since=" + Self.queryEscaped(cursor)
        let answer: HTTPResponse
        do {
            answer = try api.send("GET", target, timeout: Double(wait) + 30)
        } catch {
            throw .transport(error)
        }
        switch answer.status {
        case 200:
            do {
                return try LibraryServerProof.holdsChanges(answer)
            } catch {
                throw .notFromServer(error.seen, api, answer)
            }
        case 400, 410:
            return true
        default:
            throw api.unexpected(answer, to: "GET /v1/changes")
        }
    }

    /// The longest wait the server holds a feed request for
    /// (`changes.max_wait` in `GET /v2/capabilities`); nil when it holds none.
    public func longestWait() throws(RequestFailure) -> Int? {
        let answer: HTTPResponse
        do {
            answer = try api.send("GET", "/v2/capabilities", timeout: 30)
        } catch {
            throw .transport(error)
        }
        if answer.status == 404 { return nil }
        guard answer.status == 200 else { throw api.unexpected(answer, to: "GET /v2/capabilities") }
        do {
            return try LibraryServerProof.longestWait(answer)
        } catch {
            throw api.unexpected(answer, to: "GET /v2/capabilities")
        }
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
                let hex = String(byte, radix: 16, uppercase: true)
                out += "%" + (hex.count < 2 ? "0" + hex : hex)
            }
        }
        return out
    }
}
