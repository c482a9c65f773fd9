import LibHTTPServer
import LibJSON

extension LibraryService {
    /// A hash to check against when the user does not exist, so that a wrong
    /// name and a wrong password take the same time.
    private static let decoyHash: String = Crypto.hashPassword("decoy password") ?? ""

    /// `POST /v1/sessions` `{"username","password"}` → 201 `{"token","account"}`.
    func login(_ request: HTTPRequest) throws -> HTTPResponse {
        let shape = "The body must be {\"username\": STRING, \"password\": STRING}"
        let body = try jsonObject(request, notAnObject: { .badRequest(shape + ", not \($0)") })
        guard let username = body["username"]?.stringValue, let password = body["password"]?.stringValue else {
            throw ProblemError(.badRequest(shape))
        }
        if let seconds = loginThrottle.admit(username: username, peer: request.peerAddress) {
            return Problem(status: 429, detail: "Too many failed sign-ins; try again in \(seconds) s",
                           headers: [("Retry-After", RetryAfter(seconds: seconds).headerValue)]).response
        }
        guard let user = try checkPassword(username: username, password: password) else {
            return Problem.unauthorized("Wrong user name or password").response
        }
        loginThrottle.recordSuccess(username: username, peer: request.peerAddress)
        let token = try store.write { try UserDirectory.startSession(for: user, at: clock.now(), in: $0) }
        return .json(201, ["token": .string(token), "account": user.json])
    }

    /// The user when the password is theirs, nil for a wrong name or
    /// password (the caller has let `loginThrottle` admit the attempt).
    func checkPassword(username: String, password: String) throws -> User? {
        let found = try store.read { try UserDirectory.credentials(for: username, in: $0) }
        passwordChecks.wait()
        let valid = Crypto.verifyPassword(password, hash: found?.1 ?? Self.decoyHash)
        passwordChecks.signal()
        return valid ? found?.0 : nil
    }

    /// `DELETE /v1/sessions/current`: the token stops working at once.
    func logout(_ request: HTTPRequest, _ user: User) throws -> HTTPResponse {
        if let token = Self.bearerToken(request) {
            try store.write { try UserDirectory.revokeSession(token: token, at: clock.now(), in: $0) }
        }
        return HTTPResponse(status: 204)
    }

    /// The request body as a JSON object, or a 400/415 problem saying why not.
    func jsonObject(_ request: HTTPRequest,
                    notAnObject: (String) -> Problem = { .unprocessable("The body must be a JSON object, not \($0)") }) throws -> JSONObject {
        if let type = request.headers["Content-Type"], !Self.isJSON(type) {
            throw ProblemError(Problem(status: 415, detail: "Send the body as application/json, not \(type)"))
        }
        let value: JSONValue
        do {
            value = try JSONParser.parse(request.body, limits: Self.requestBodyLimits)
        } catch where error.exceedsSizeLimit {
            throw ProblemError(Problem(status: 413, detail: "The body holds \(error.reason); a request needs far fewer"))
        } catch {
            throw ProblemError(.badRequest("The body is not valid JSON: \(error)"))
        }
        guard let object = value.objectValue else {
            throw ProblemError(notAnObject(value.typeName))
        }
        return object
    }

    /// A request body is a book or a sign-in: a few members, little nesting.
    /// Far above that is refused before it is built (issue 23).
    static let requestBodyLimits = JSONParser.Limits(maxDepth: 64, maxMembers: 1_000)

    static func isJSON(_ contentType: String) -> Bool { MediaType.isJSON(MediaType.of(contentType: contentType)) }
}

import Foundation
