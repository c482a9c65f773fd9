import LibNet

/// Why a request to the library server did not give what was asked, as a
/// value. LibClient says what happened; the command layer gives the words
/// and the exit code (`AccountWorkspace.explained`).
public enum RequestFailure: Error, Sendable, Equatable {
    /// No usable answer: the transport failed, the answer stands for a
    /// failure (401, 429, 5xx, a redirect), or it did not prove it is the
    /// library server's (`TransportFailure.Kind.notFromLibraryServer`).
    case transport(TransportFailure)
    /// The library server's own problem answer to this request.
    case problem(ServerProblem)

    /// "An answer that did not come from the library server: `seen`".
    static func notFromServer(_ seen: String, _ api: ServerAPI, _ response: HTTPResponse? = nil) -> RequestFailure {
        .transport(TransportFailure(kind: .notFromLibraryServer(seen: seen), endpoint: api.endpoint, proxy: response?.proxy))
    }
}

/// A problem+json answer of the library server's: which request, its status
/// and the problem's detail.
public struct ServerProblem: Sendable, Equatable {
    /// `GET /v1/books/b-7`.
    public let request: String
    public let status: Int
    public let detail: String

    public init(request: String, status: Int, detail: String) {
        self.request = request
        self.status = status
        self.detail = detail
    }
}

extension ServerAPI {
    /// Sends a GET and turns what cannot be read into a `RequestFailure`:
    /// transport failures, and the statuses that mean "not now" or "not you".
    func read(_ target: String, headers: [(String, String)] = []) throws(RequestFailure) -> HTTPResponse {
        let answer: HTTPResponse
        do {
            answer = try send("GET", target, headers: headers)
        } catch {
            throw .transport(error)
        }
        if let failure = failure(for: answer) { throw .transport(failure) }
        return answer
    }

    /// An answer that is neither what was asked nor one the caller expects:
    /// the server's problem when it is one, else not the library server's.
    func unexpected(_ answer: HTTPResponse, to request: String) -> RequestFailure {
        guard answer.isProblemJSON else { return .notFromServer(answer.seen, self, answer) }
        return .problem(ServerProblem(request: request, status: answer.status, detail: answer.problemDetail))
    }
}
