import LibHTTPServer
import LibJSON

/// Device sign-in's answers (RFC 8628; `DeviceGrants`): off with
/// `--no-device-grant`, and then every one of these paths is 404.
struct DeviceSignIn: Sendable {
    /// Wrong user codes, per peer and in all.
    let userCodes: AttemptBudgets
    /// New code pairs, per peer and in all.
    let codeRequests: AttemptBudgets

    init(clock: ServerClock) {
        userCodes = .userCodes(now: clock.now)
        codeRequests = .codeRequests(now: clock.now)
    }
}

extension LibraryService {
    static let deviceGrantRoutes: [Route] = [
        Route("POST", "/v1/device/code", .anyone { service, call in try service.startDeviceGrant(call.request) }),
        Route("POST", "/v1/device/token", .anyone { service, call in try service.pollDeviceGrant(call.request) }),
        Route("POST", "/v1/device/approve", .signedIn { service, call, user in try service.approveDeviceGrant(call.request, user: user) }),
        Route("GET", "/device", .anyone { service, call in service.verificationPage(call.request) }),
        Route("POST", "/device", .anyone { service, call in try service.decideOnVerificationPage(call.request) }),
    ]

    /// `POST /v1/device/code` (`client_id=lib`, as a form or JSON): a new
    /// device code and user code, and where the user approves it.
    func startDeviceGrant(_ request: HTTPRequest) throws -> HTTPResponse {
        guard let deviceSignIn else { return Problem.noSuchRoute(request).response }
        _ = try oauthFields(request)
        if let seconds = deviceSignIn.codeRequests.admit(peer: request.peerAddress) {
            return Problem(status: 429, detail: "Too many device sign-ins started from this address; try again in \(seconds) s",
                           headers: [("Retry-After", RetryAfter(seconds: seconds).headerValue)]).response
        }
        let started = try store.write { try DeviceGrants.start(at: clock.now(), in: $0) }
        let page = Self.verificationURI(request)
        return Self.noStore(.json(200, [
            "device_code": .string(started.deviceCode),
            "user_code": .string(started.userCode),
            "verification_uri": .string(page),
            "verification_uri_complete": .string(page + "?code=" + started.userCode),
            "expires_in": .integer(Int64(DeviceGrants.lifetime)),
            "interval": .integer(Int64(DeviceGrants.interval)),
        ]))
    }

    /// `POST /v1/device/token` (`device_code`, as a form or JSON): the
    /// session once approved, else RFC 8628 §3.5's error.
    func pollDeviceGrant(_ request: HTTPRequest) throws -> HTTPResponse {
        guard deviceSignIn != nil else { return Problem.noSuchRoute(request).response }
        let fields = try oauthFields(request)
        if let grantType = fields["grant_type"], grantType != Self.deviceCodeGrantType {
            return Self.oauthError("unsupported_grant_type", "The grant_type must be \(Self.deviceCodeGrantType)")
        }
        guard let deviceCode = fields["device_code"], !deviceCode.isEmpty else {
            return Self.oauthError("invalid_request", "Send the device_code from POST /v1/device/code")
        }
        let now = clock.now()
        let answer: (DeviceGrants.PollAnswer, String?) = try store.write { db in
            let answer = try DeviceGrants.poll(deviceCode: deviceCode, at: now, in: db)
            guard case .approved(let user) = answer else { return (answer, nil) }
            return (answer, try UserDirectory.startSession(for: user, at: now, in: db))
        }
        switch answer {
        case (.approved(let user), let token?):
            return Self.noStore(.json(200, ["access_token": .string(token), "token_type": "Bearer",
                                            "token": .string(token), "account": user.json]))
        case (.pending, _): return Self.oauthError("authorization_pending", "Nobody has approved the code yet")
        case (.slowDown(let interval), _):
            return Self.oauthError("slow_down", "Polled too soon: wait \(Int(interval)) s between polls", interval: interval)
        case (.denied, _): return Self.oauthError("access_denied", "The sign-in was denied")
        case (.expired, _): return Self.oauthError("expired_token", "The code expired; start again with POST /v1/device/code")
        case (.unknown, _), (.approved, nil):
            return Self.oauthError("invalid_grant", "The device code is unknown, or was used already")
        }
    }

    /// `POST /v1/device/approve` `{"user_code"}` with a bearer token: signs
    /// the waiting device in as the token's user.
    func approveDeviceGrant(_ request: HTTPRequest, user: User) throws -> HTTPResponse {
        guard let deviceSignIn else { return Problem.noSuchRoute(request).response }
        let body = try jsonObject(request, notAnObject: { .badRequest("The body must be {\"user_code\": STRING}, not \($0)") })
        guard let typed = body["user_code"]?.stringValue else { throw ProblemError(.badRequest("The body must be {\"user_code\": STRING}")) }
        if let seconds = deviceSignIn.userCodes.admit(peer: request.peerAddress) {
            return Self.tooManyCodes(seconds).response
        }
        guard let userCode = DeviceGrants.normalizedUserCode(typed) else {
            return Problem.notFound(Self.unknownCode(typed)).response
        }
        let standing = try store.write { try DeviceGrants.decide(userCode: userCode, approvingFor: user, at: clock.now(), in: $0) }
        if standing != .unknown { deviceSignIn.userCodes.refund(peer: request.peerAddress) }
        switch standing {
        case .pending: return Self.noStore(.json(200, ["user_code": .string(userCode), "account": user.json]))
        case .unknown: return Problem.notFound(Self.unknownCode(userCode)).response
        case .expired: return Problem(status: 410, detail: Self.expiredCode(userCode)).response
        case .decided: return Problem(status: 409, detail: Self.decidedCode(userCode)).response
        }
    }

    /// `GET /device[?code=XXXX-XXXX]`: the page, with the code filled in.
    func verificationPage(_ request: HTTPRequest) -> HTTPResponse {
        guard deviceSignIn != nil else { return Problem.noSuchRoute(request).response }
        let code = request.query["code"].flatMap(DeviceGrants.normalizedUserCode) ?? ""
        return DeviceVerificationPage.response(status: 200, userCode: code)
    }

    /// `POST /device` from the page's form: `user_code`, `username`,
    /// `password` and `action` (approve or deny; a denial needs no password).
    func decideOnVerificationPage(_ request: HTTPRequest) throws -> HTTPResponse {
        guard let deviceSignIn else { return Problem.noSuchRoute(request).response }
        typealias Page = DeviceVerificationPage
        // No cookie carries any authority here, but a form posted from
        // another site is refused all the same (browsers send Origin with a POST).
        if let origin = request.headers["Origin"], !Self.isSameOrigin(origin, request) {
            return Page.response(status: 403, notice: .problem("This form only takes posts from its own page."))
        }
        guard FormBody.isForm(request), let fields = FormBody.fields(request.body) else {
            return Page.response(status: 415, notice: .problem("Send the form as \(FormBody.mediaType)."))
        }
        let typed = fields["user_code"] ?? "", username = fields["username"] ?? ""
        let approving = fields["action"] != "deny"
        func page(_ status: Int, _ text: String) -> HTTPResponse {
            Page.response(status: status, notice: .problem(text), userCode: typed, username: username)
        }
        if let seconds = deviceSignIn.userCodes.admit(peer: request.peerAddress) {
            var response = page(429, Self.tooManyCodes(seconds).detail)
            response.headers.set("Retry-After", RetryAfter(seconds: seconds).headerValue)
            return response
        }
        guard let userCode = DeviceGrants.normalizedUserCode(typed) else { return page(400, Self.unknownCode(typed)) }
        let now = clock.now()
        let standing = try store.read { try DeviceGrants.standing(ofUserCode: userCode, at: now, in: $0) }
        if standing != .unknown { deviceSignIn.userCodes.refund(peer: request.peerAddress) }
        switch standing {
        case .pending: break
        case .unknown: return page(400, Self.unknownCode(userCode))
        case .expired: return page(400, Self.expiredCode(userCode))
        case .decided: return page(400, Self.decidedCode(userCode))
        }
        var approver: User?
        if approving {
            let password = fields["password"] ?? ""
            if let seconds = loginThrottle.admit(username: username, peer: request.peerAddress) {
                var response = page(429, "Too many failed sign-ins; try again in \(seconds) s")
                response.headers.set("Retry-After", RetryAfter(seconds: seconds).headerValue)
                return response
            }
            guard let user = try checkPassword(username: username, password: password) else {
                return page(401, "Wrong user name or password")
            }
            loginThrottle.recordSuccess(username: username, peer: request.peerAddress)
            approver = user
        }
        switch try store.write({ try DeviceGrants.decide(userCode: userCode, approvingFor: approver, at: clock.now(), in: $0) }) {
        case .pending:
            return Page.response(status: 200, notice: approver.map { .approved(username: $0.username) } ?? .denied)
        case .unknown: return page(400, Self.unknownCode(userCode))
        case .expired: return page(400, Self.expiredCode(userCode))
        case .decided: return page(400, Self.decidedCode(userCode))
        }
    }

    static let deviceCodeGrantType = "urn:ietf:params:oauth:grant-type:device_code"

    /// The request's fields: a form (as RFC 8628 sends them; also a body
    /// without a Content-Type) or a JSON object of strings; none without a body.
    private func oauthFields(_ request: HTTPRequest) throws -> [String: String] {
        if request.body.isEmpty { return [:] }
        if FormBody.isForm(request) || request.headers["Content-Type"] == nil {
            guard let fields = FormBody.fields(request.body) else {
                throw ProblemError(.badRequest("The body is not valid \(FormBody.mediaType)"))
            }
            return fields
        }
        let object = try jsonObject(request, notAnObject: { .badRequest("The body must be a JSON object, not \($0)") })
        return object.reduce(into: [:]) { fields, member in
            if let text = member.value.stringValue { fields[member.key] = text }
        }
    }

    /// RFC 6749 §5.2's error answer, which RFC 8628 §3.5 polls get.
    private static func oauthError(_ code: String, _ description: String, interval: Double? = nil) -> HTTPResponse {
        var members: [(String, JSONValue)] = [("error", .string(code)), ("error_description", .string(description))]
        if let interval { members.append(("interval", .integer(Int64(interval)))) }
        return noStore(.json(400, .object(JSONObject(members))))
    }

    private static func noStore(_ response: HTTPResponse) -> HTTPResponse {
        var response = response
        response.headers.set("Cache-Control", "no-store")
        return response
    }

    /// The page's address as the client reached this server: its `Host`,
    /// over https when a proxy says so (`X-Forwarded-Proto`).
    static func verificationURI(_ request: HTTPRequest) -> String {
        let scheme = request.headers["X-Forwarded-Proto"] == "https" ? "https" : "http"
        return "\(scheme)://\(request.headers["Host"] ?? "localhost")/device"
    }

    /// Whether an `Origin` header names this server, as the client reached it.
    private static func isSameOrigin(_ origin: String, _ request: HTTPRequest) -> Bool {
        guard let host = request.headers["Host"], let schemeEnd = origin.range(of: "://") else { return false }
        return origin[schemeEnd.upperBound...] == host[...]
    }

    private static func tooManyCodes(_ seconds: Int) -> Problem {
        Problem(status: 429, detail: "Too many wrong codes; try again in \(seconds) s",
                headers: [("Retry-After", RetryAfter(seconds: seconds).headerValue)])
    }

    private static func unknownCode(_ code: String) -> String {
        "No device waits for the code \(code.prefix(20)): check it against the one the device shows"
    }

    private static func expiredCode(_ code: String) -> String {
        "The code \(code) expired: start the sign-in on the device again"
    }

    private static func decidedCode(_ code: String) -> String {
        "The code \(code) was approved or denied already"
    }
}
