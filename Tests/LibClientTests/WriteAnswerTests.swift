import LibBase
import LibClient
import LibJSON
import LibNet
import Testing

/// The one reading of a write's status: a v1 answer and a v2 batch item
/// with the same status and words mean the same for the write.
@Suite struct WriteAnswerTests {
    let writer = LibraryWriter(api: ServerAPI(transport: ScriptedTransport(), origin: ScriptedTransport.origin, token: "t"))
    let item = WriteItem(key: "k-1", path: "books/b-7", intent: .update(set: JSONObject([("title", "Mine")]), remove: [], seen: JSONObject([("title", "Dune")])),
                         ifMatch: "\"1-a\"")

    /// What an answer says, in one line to compare.
    static func said(_ answer: WriteAnswer) -> String {
        switch answer {
        case .applied(let document, let etag, _): return "applied \(document ?? "-") \(etag ?? "-")"
        case .conflict(let theirs, let etag): return "conflict \(theirs ?? "-") \(etag ?? "-")"
        case .rejected(let problem): return "rejected \(problem)"
        case .unauthorized: return "unauthorized"
        case .refusedMassChange(let problem): return "refused \(problem.destructive) of \(problem.books), allowed \(problem.allowed)"
        case .temporary(let failure):
            guard case .serverError(let status, let reason, _) = failure.kind else { return "temporary \(failure.kind)" }
            return "temporary \(status) \(reason)"
        }
    }

    /// The same answer as v1 sends it (a response) and as v2 does (a result).
    static func v1AndV2(_ status: Int) -> (HTTPResponse, String) {
        let book = #"{"id":"b-7","title":"Mine"}"#
        switch status {
        case 200:
            return (Reply.json(200, book, [("ETag", "\"2-b\""), ("Idempotency-Key", "k-1")]),
                    #"{"key":"k-1","status":200,"etag":"\"2-b\"","document":\#(book)}"#)
        case 412:
            let current = #""current":{"id":"b-7","title":"Theirs"},"current_etag":"\"3-c\"""#
            return (Reply.json(412, #"{"status":412,"detail":"changed",\#(current)}"#, [("Idempotency-Key", "k-1")]),
                    #"{"key":"k-1","status":412,"problem":{"status":412,"detail":"changed"},\#(current)}"#)
        default:
            return (Reply.problem(status, "not so", [("Idempotency-Key", "k-1")]),
                    #"{"key":"k-1","status":\#(status),"problem":{"status":\#(status),"detail":"not so"}}"#)
        }
    }

    @Test(arguments: [200, 412, 409, 404, 422])
    func bothProtocolsReadAStatusAlike(status: Int) {
        let (response, result) = Self.v1AndV2(status)
        let single = writer.answer(response, to: item)
        let batch = writer.answer(Reply.json(200, #"{"results":[\#(result)]}"#), toBatch: [item])
        guard case .answered(let answers) = batch, let item = answers.first else { Issue.record("\(batch)"); return }
        #expect(Self.said(single) == Self.said(item))
        #expect(!Self.said(single).contains("notFromLibraryServer"), "\(single)")
    }

    @Test func aStatusTheServerNeverGivesAWriteMeansNothing() {
        for status in [100, 304, 600] {
            #expect(WriteAnswer(WriteResult(status: status), endpoint: ScriptedTransport.origin) == nil, "\(status)")
        }
        #expect(Self.said(WriteAnswer(WriteResult(status: 422), endpoint: ScriptedTransport.origin)!)
                == "rejected the server answered 422")
    }
}
