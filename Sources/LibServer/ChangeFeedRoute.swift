import LibBase
import LibHTTPServer
import LibJSON

extension LibraryService {
    /// `GET /v1/changes?since=CURSOR&wait=SECONDS`: the page at once when it
    /// has changes (or without `wait`); otherwise the request waits, holding
    /// no thread and no database connection, until a change commits on any
    /// instance or the wait ends (then an empty page and the same cursor),
    /// or until a newer waiter needs its place (`WaiterCaps`: an empty page
    /// at once).
    func changesOrWait(_ request: HTTPRequest, user: User) throws -> HTTPReply {
        let wait = try Self.waitSeconds(request)
        let (response, empty) = try changePage(request)
        guard let wait, wait > 0, empty, let since = request.query["since"].flatMap(ChangeCursor.init(parsing:)) else {
            return .respond(response)
        }
        var query = request.query
        query["wait"] = nil
        let immediate = HTTPRequest(method: request.method, target: request.target, path: request.path, query: query,
                                    headers: request.headers, body: request.body, remoteAddress: request.remoteAddress,
                                    version: request.version)
        var atStop = response
        atStop.headers.set("Cache-Control", "private, no-cache")
        atStop.headers.set("Vary", "Authorization")
        let pending = PendingReply(answerAtStop: atStop)
        let waiter = ChangeWaiters.Waiter(pending: pending, since: since.seq, deadline: MonotonicClock.now() + Double(wait),
                                          user: user.id, peer: request.peerAddress, answer: { [self] in handle(immediate) })
        changeWaiters.add(waiter)
        return .later(pending)
    }

    /// `wait`: whole seconds, 0 to the most the server holds a request.
    private static func waitSeconds(_ request: HTTPRequest) throws -> Int? {
        guard let text = request.query["wait"] else { return nil }
        guard let seconds = Int(text), (0...ChangeWaiters.maxWaitSeconds).contains(seconds) else {
            throw ProblemError(.badRequest("wait must be a whole number of seconds from 0 to \(ChangeWaiters.maxWaitSeconds), not '\(text)'"))
        }
        return seconds
    }

    func changes(_ request: HTTPRequest) throws -> HTTPResponse {
        try changePage(request).response
    }

    /// `GET /v1/changes?since=CURSOR[&limit=N]`: the books changed after the
    /// cursor, in commit order, each once in its current state (`document`
    /// null for a deletion), the cursor to ask from next, and whether more
    /// changes follow it already (`more`). A page ends early when its
    /// documents reach `maxPageBytes`, as a listing page does. Without
    /// `since`: no items, and a cursor for "now". 410 when the cursor is
    /// older than the tombstones kept, or not one of this database's.
    private func changePage(_ request: HTTPRequest) throws -> (response: HTTPResponse, empty: Bool) {
        let limit = try Self.pageLimit(request)
        guard let sinceText = request.query["since"] else {
            let state = try store.read { try ChangeLog.state(in: $0) }
            return (Self.changePage([], next: ChangeCursor(epoch: state.epoch, seq: state.newest), more: false), true)
        }
        guard let since = ChangeCursor(parsing: sinceText) else {
            throw ProblemError(.badRequest("since must be a cursor from GET /v1/changes (its 'next'), not '\(sinceText)'"))
        }
        let device = FeedBehind.device(of: request)
        let (page, state, behind) = try store.read { db in
            // Entries first, then the state: see ChangeLog.state.
            let page = try ChangeLog.page(after: since.seq, limit: limit, maxBytes: Self.maxPageBytes, in: db)
            let behind = try device.map { try ChangeLog.behind(after: page.end ?? since.seq, device: $0, in: db) }
            return (page, try ChangeLog.state(in: db), behind)
        }
        guard since.epoch == state.epoch, since.seq >= state.horizon, since.seq <= state.newest else {
            throw ProblemError(Problem(status: 410, detail: "That cursor is older than the changes this server keeps (or from another database): list the books again"))
        }
        let next = ChangeCursor(epoch: state.epoch, seq: page.end ?? since.seq)
        var response = Self.changePage(page.entries, next: next, more: page.more)
        if let behind { response.headers.set(FeedBehind.behindHeader, String(behind)) }
        return (response, page.entries.isEmpty)
    }

    /// The body is put together from the stored JSON texts, without parsing
    /// them (LibJSON wrote them: each is one JSON value).
    private static func changePage(_ entries: [ChangeLog.Entry], next: ChangeCursor, more: Bool) -> HTTPResponse {
        var body = #"{"items":["#
        body.reserveCapacity(entries.reduce(64) { $0 + ($1.document?.utf8.count ?? 4) + $1.id.utf8.count + $1.etag.utf8.count + 40 })
        for (index, entry) in entries.enumerated() {
            if index > 0 { body += "," }
            body += #"{"id":"# + JSONValue.string(entry.id).serialized() + #","etag":"# + JSONValue.string(entry.etag).serialized()
                + #","document":"# + (entry.document ?? "null") + "}"
        }
        body += #"],"next":"# + JSONValue.string(next.text).serialized() + #","more":"# + (more ? "true" : "false") + "}"
        return HTTPResponse(status: 200, headers: HTTPHeaders([("Content-Type", MediaType.json)]), body: Array(body.utf8))
    }
}
