import LibHTTPServer
import LibStore
import Synchronization

/// Answers to signed-in reads (a book, a page, a history), kept while the
/// database's `CommitStamp` stays the same and the session's standing
/// cannot change by time alone (until its use is due to be written down):
/// asked again, an event loop sends them without a statement, a lock or a
/// thread. Keyed by everything such an answer depends on: the method, the
/// target, the token and the conditional headers. Bounded whatever the
/// clients ask for: an answer over `answerBytes` is not kept, and past
/// `limit` answers or `totalBytes` all are forgotten.
final class RecentReadAnswers: Sendable {
    static let limit = 4096
    static let answerBytes = 64 * 1024
    static let totalBytes = 8 * 1024 * 1024

    struct Key: Hashable {
        let method: String
        let target: String
        let authorization: String?
        let ifNoneMatch: String?
        let ifMatch: String?

        init(_ request: HTTPRequest) {
            method = request.method
            target = request.target
            authorization = request.headers["Authorization"]
            ifNoneMatch = request.headers["If-None-Match"]
            ifMatch = request.headers["If-Match"]
        }
    }

    struct Answer {
        let response: HTTPResponse
        let route: Int?
        /// The session's use is due to be written down from then on (the server's clock).
        let until: Double
    }

    private struct Kept {
        var answers: [Key: Answer] = [:]
        var bytes = 0
        /// The database as every kept answer read it.
        var stamp: CommitStamp?
        var given = 0
    }

    private let kept = Mutex(Kept())

    /// How many answers were given from here (`GET /metrics`).
    var given: Int { kept.withLock { $0.given } }

    /// The answer kept for `key` if nothing was committed since it was read
    /// (`stamp` is the database's now) and `now` is before its end.
    func answer(for key: Key, stamp: CommitStamp, now: Double) -> Answer? {
        kept.withLock { kept in
            guard kept.stamp == stamp, let answer = kept.answers[key], now < answer.until else { return nil }
            kept.given += 1
            return answer
        }
    }

    /// Keeps an answer read from the database as `stamp` says it was before the read began.
    func keep(_ answer: Answer, for key: Key, readAt stamp: CommitStamp) {
        let size = answer.response.body.count + key.target.utf8.count + (key.authorization?.utf8.count ?? 0) + 256
        guard size <= Self.answerBytes else { return }
        kept.withLock { kept in
            if kept.stamp != stamp || kept.answers.count >= Self.limit || kept.bytes + size > Self.totalBytes {
                kept.answers.removeAll(keepingCapacity: kept.stamp == stamp)
                kept.bytes = 0
                kept.stamp = stamp
            }
            kept.answers[key] = answer
            kept.bytes += size
        }
    }
}
