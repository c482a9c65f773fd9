import LibHTTPServer
import LibJSON

extension LibraryService {
    /// `/_test/faults`, only with `--fault-control`: GET lists the rules in
    /// force, PUT replaces them (text body, one rule a line), DELETE clears
    /// them. Requests under `/_test` never meet the faults themselves.
    /// `PUT /_test/clock` moves the server's clock on by the body's seconds.
    /// `GET /_test/waiters`: how many change-feed requests wait, and how
    /// many were answered early or let go when their client left.
    static let faultControlRoutes: [Route] = [
        Route("GET", "/_test/waiters", .anyone { service, _ in
            let counts = service.changeWaiters.counts
            return .json(200, ["waiting": .integer(Int64(counts.waiting)), "answered_early": .integer(Int64(counts.answeredEarly)),
                               "clients_gone": .integer(Int64(counts.clientsGone))])
        }),
        Route("PUT", "/_test/clock", .anyone { service, call in
            guard let advance = service.clock.advance,
                  let seconds = Double(String(decoding: call.request.body, as: UTF8.self)), seconds >= 0 else {
                throw ProblemError(.badRequest("PUT /_test/clock takes the seconds to move the clock on, as the body"))
            }
            advance(seconds)
            return .json(200, ["now": .double(service.clock.now())])
        }),
        Route("GET", "/_test/faults", .anyone { service, _ in service.faultRulesAnswer() }),
        Route("PUT", "/_test/faults", .anyone { service, call in
            do throws(FaultRuleError) {
                service.faults.replace(with: try FaultRule.parseList(String(decoding: call.request.body, as: UTF8.self)))
            } catch {
                throw ProblemError(.badRequest(error.description))
            }
            return service.faultRulesAnswer()
        }),
        Route("DELETE", "/_test/faults", .anyone { service, _ in
            service.faults.replace(with: [])
            return service.faultRulesAnswer()
        }),
    ]

    private func faultRulesAnswer() -> HTTPResponse {
        .json(200, ["rules": .array(faults.rules.map { .string($0.description) })])
    }
}
