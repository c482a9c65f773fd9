import LibBase
import LibHTTPServer
import LibJSON

extension LibraryService {
    /// `GET /v1/changes?since=CURSOR&wait=SECONDS`: the page at once when it
    /// has changes (or without `wait`); otherwise the request waits, holding
    /// no thread and no database connection, until a change commits on any
    /// instance or the wait ends (then an empty page and the same cursor).
    func changesOrWait(_ request: HTTPRequest) throws -> HTTPReply {
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
                                          answer: { [self] in handle(immediate) })
        return changeWaiters.add(waiter) ? .later(pending) : .respond(response)
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
    /// null for a deletion), and the cursor to ask from next. Without
    /// `since`: no items, and a cursor for "now". 410 when the cursor is
    /// older than the tombstones kept, or not one of this database's.
    private func changePage(_ request: HTTPRequest) throws -> (response: HTTPResponse, empty: Bool) {
        let limit = try Self.pageLimit(request)
        guard let sinceText = request.query["since"] else {
            let state = try store.read { try ChangeLog.state(in: $0) }
            return (Self.changePage([], next: ChangeCursor(epoch: state.epoch, seq: state.newest)), true)
        }
        guard let since = ChangeCursor(parsing: sinceText) else {
            throw ProblemError(.badRequest("since must be a cursor from GET /v1/changes (its 'next'), not '\(sinceText)'"))
        }
        let (entries, state) = try store.read { db in
            // Entries first, then the state: see ChangeLog.state.
            let entries = try ChangeLog.entries(after: since.seq, limit: limit, in: db)
            return (entries, try ChangeLog.state(in: db))
        }
        guard since.epoch == state.epoch, since.seq >= state.horizon, since.seq <= state.newest else {
            throw ProblemError(Problem(status: 410, detail: "That cursor is older than the changes this server keeps (or from another database): list the books again"))
        }
        return (Self.changePage(entries, next: ChangeCursor(epoch: state.epoch, seq: entries.last?.seq ?? since.seq)), entries.isEmpty)
    }

    private static func changePage(_ entries: [ChangeLog.Entry], next: ChangeCursor) -> HTTPResponse {
        var items: [JSONValue] = []
        items.reserveCapacity(entries.count)
        for entry in entries {
            let document = entry.document.flatMap { try? JSONParser.parse($0) } ?? .null
            items.append(["id": .string(entry.id), "etag": .string(entry.etag), "document": document])
        }
        return .json(200, ["items": .array(items), "next": .string(next.text)])
    }
}
