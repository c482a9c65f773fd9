import LibHTTPServer
import LibJSON

extension LibraryService {
    /// `/_test/faults`, only with `--fault-control`: GET lists the rules in
    /// force, PUT replaces them (text body, one rule a line), DELETE clears them.
    func faultControl(_ request: HTTPRequest) -> HTTPReply {
        guard request.path == "/_test/faults" else { return .respond(Problem.notFound("No such route: \(request.path)").response) }
        switch request.method {
        case "GET": break
        case "DELETE": faults.replace(with: [])
        case "PUT":
            do {
                faults.replace(with: try FaultRule.parseList(String(decoding: request.body, as: UTF8.self)))
            } catch {
                return .respond(Problem.badRequest(error.description).response)
            }
        default:
            return .respond(Problem(status: 405, title: "Method Not Allowed", detail: "Use GET, PUT or DELETE",
                                    headers: [("Allow", "GET, PUT, DELETE")]).response)
        }
        return .respond(.json(200, ["rules": .array(faults.rules.map { .string($0.description) })]))
    }
}
