import LibHTTPServer
import LibJSON

extension LibraryService {
    /// `GET /v1/changes?since=CURSOR[&limit=N]`: the books changed after the
    /// cursor, in commit order, each once in its current state (`document`
    /// null for a deletion), and the cursor to ask from next. Without
    /// `since`: no items, and a cursor for "now". 410 when the cursor is
    /// older than the tombstones kept, or not one of this database's.
    func changes(_ request: HTTPRequest) throws -> HTTPResponse {
        let limit = try Self.pageLimit(request)
        guard let sinceText = request.query["since"] else {
            let state = try store.read { try ChangeLog.state(in: $0) }
            return Self.changePage([], next: ChangeCursor(epoch: state.epoch, seq: state.newest))
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
        return Self.changePage(entries, next: ChangeCursor(epoch: state.epoch, seq: entries.last?.seq ?? since.seq))
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
