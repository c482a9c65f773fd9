import LibHTTPServer
import LibJSON

extension LibraryService {
    /// `/_test/faults`, only with `--fault-control`: GET lists the rules in
    /// force, PUT replaces them (text body, one rule a line), DELETE clears
    /// them. Requests under `/_test` never meet the faults themselves.
    static let faultControlRoutes: [Route] = [
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
