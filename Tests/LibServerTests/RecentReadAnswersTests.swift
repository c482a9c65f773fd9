import LibHTTPServer
@testable import LibServer
import LibStore
import Testing
import TestSupport

/// The answers an event loop gives again without reading the database:
/// only while nothing was committed, only before the session's use is due
/// to be written down, and never more than the bounds.
@Suite struct RecentReadAnswersTests {
    let directory: TemporaryDirectory
    let writer: Database
    let watch: CommitWatch

    init() throws {
        directory = try TemporaryDirectory("recent-reads")
        writer = try Database(path: directory.file("reads.sqlite"))
        try writer.execute("CREATE TABLE t (x INTEGER)")
        watch = try #require(CommitWatch(try Database(path: directory.file("reads.sqlite"))))
    }

    func request(token: String, target: String = "/v1/books/b-7", headers: [(String, String)] = []) -> HTTPRequest {
        HTTPRequest(method: "GET", target: target, path: target, query: [:],
                    headers: HTTPHeaders([("Authorization", "Bearer \(token)")] + headers), body: [], remoteAddress: "127.0.0.1:1")
    }

    func answer(_ text: String, bytes: Int = 0) -> RecentReadAnswers.Answer {
        .init(response: HTTPResponse(status: 200, body: Array(text.utf8) + [UInt8](repeating: 32, count: bytes)), route: 3, until: 100)
    }

    @Test func anAnswerIsGivenAgainOnlyForTheSameRequestBeforeACommitAndBeforeItsEnd() throws {
        let answers = RecentReadAnswers()
        let stamp = try #require(watch.stamp)
        let key = RecentReadAnswers.Key(request(token: "a"))
        answers.keep(answer("kept"), for: key, readAt: stamp)
        #expect(answers.answer(for: key, stamp: stamp, now: 99)?.response.body == Array("kept".utf8))
        #expect(answers.given == 1)
        #expect(answers.answer(for: key, stamp: stamp, now: 100) == nil, "the session's use is due: the database answers")
        #expect(answers.answer(for: RecentReadAnswers.Key(request(token: "b")), stamp: stamp, now: 0) == nil, "another token")
        #expect(answers.answer(for: RecentReadAnswers.Key(request(token: "a", headers: [("If-None-Match", "\"1-x\"")])),
                               stamp: stamp, now: 0) == nil, "another condition")
        #expect(answers.answer(for: RecentReadAnswers.Key(request(token: "a", target: "/v1/books/b-8")), stamp: stamp, now: 0) == nil)
        try writer.execute("INSERT INTO t VALUES (1)")
        let committed = try #require(watch.stamp)
        #expect(answers.answer(for: key, stamp: committed, now: 0) == nil, "a commit ends every kept answer")
        #expect(answers.given == 1)
    }

    @Test func theAnswersKeptStayWithinTheirBoundsWhateverIsAsked() throws {
        let answers = RecentReadAnswers()
        let stamp = try #require(watch.stamp)
        let large = RecentReadAnswers.Key(request(token: "large"))
        answers.keep(answer("", bytes: RecentReadAnswers.answerBytes), for: large, readAt: stamp)
        #expect(answers.answer(for: large, stamp: stamp, now: 0) == nil, "an answer over answerBytes is not kept")
        for index in 0..<(RecentReadAnswers.limit + 1) {
            answers.keep(answer("\(index)"), for: RecentReadAnswers.Key(request(token: "t-\(index)")), readAt: stamp)
        }
        #expect(answers.answer(for: RecentReadAnswers.Key(request(token: "t-0")), stamp: stamp, now: 0) == nil,
                "past the limit, all were forgotten")
        #expect(answers.answer(for: RecentReadAnswers.Key(request(token: "t-\(RecentReadAnswers.limit)")), stamp: stamp, now: 0) != nil)
        // 8 MiB of answers of 60 KiB: at most totalBytes are ever held.
        for index in 0..<200 {
            answers.keep(answer("", bytes: 60 * 1024), for: RecentReadAnswers.Key(request(token: "big-\(index)")), readAt: stamp)
        }
        let held = (0..<200).filter { answers.answer(for: RecentReadAnswers.Key(request(token: "big-\($0)")), stamp: stamp, now: 0) != nil }
        #expect(!held.isEmpty && held.count * 60 * 1024 <= RecentReadAnswers.totalBytes)
    }
}
