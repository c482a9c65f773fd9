import LibJSON
import LibNet

/// Device sign-in (RFC 8628) as a client: asking for a code pair
/// (`POST /v1/device/code`), polling for the token (`POST
/// /v1/device/token`), and approving another device's code as a signed-in
/// user (`POST /v1/device/approve`). Answers are typed; the command layer
/// words them.
public struct DeviceSignInClient {
    /// A code pair, and where to approve it.
    public struct CodePair: Sendable, Equatable {
        public let deviceCode: String
        public let userCode: String
        public let verificationURI: String
        /// The page with the code filled in, when the server gave one.
        public let verificationURIComplete: String?
        /// Seconds the pair works.
        public let expiresIn: Int
        /// Seconds between polls.
        public let interval: Int
    }

    public enum CodeAnswer: Sendable, Equatable {
        case codes(CodePair)
        /// 404: the server does not offer device sign-in.
        case notOffered
    }

    /// A poll's answer: RFC 8628 §3.5's four, or the token.
    public enum PollAnswer: Sendable, Equatable {
        case token(String)
        case pending
        case slowDown
        case denied
        /// The code expired (or the server no longer knows it).
        case expired
    }

    public enum ApproveAnswer: Sendable, Equatable {
        /// The device is signed in as this user name.
        case approved(username: String)
        /// No device waits for the code (404), with the server's words.
        case unknown(String)
        /// The code expired (410).
        case expired(String)
        /// Approved or denied already (409).
        case decided(String)
        /// 404 from a server without device sign-in.
        case notOffered
    }

    public let api: ServerAPI

    public init(api: ServerAPI) {
        self.api = api
    }

    static let codeRequest = "POST /v1/device/code"
    static let tokenRequest = "POST /v1/device/token"
    static let approveRequest = "POST /v1/device/approve"

    public func requestCode() throws(RequestFailure) -> CodeAnswer {
        let answer = try send("/v1/device/code", ["client_id": "lib"])
        if answer.status == 404 { return .notOffered }
        if let failure = api.failure(for: answer) { throw .transport(failure) }
        guard answer.status == 200 else { throw api.unexpected(answer, to: Self.codeRequest) }
        guard answer.isJSON, let json = answer.json, let deviceCode = json["device_code"]?.stringValue,
              let userCode = json["user_code"]?.stringValue, let uri = json["verification_uri"]?.stringValue,
              let expiresIn = json["expires_in"]?.integerValue
        else { throw .notFromServer("\(answer.seen) without a device code", api, answer) }
        // The server's numbers, within sane bounds: a hostile server must not
        // make lib poll in a tight loop or wait for days.
        let interval = min(max(json["interval"]?.integerValue ?? 5, 1), 60)
        return .codes(CodePair(deviceCode: deviceCode, userCode: userCode, verificationURI: uri,
                               verificationURIComplete: json["verification_uri_complete"]?.stringValue,
                               expiresIn: Int(min(max(expiresIn, 1), 3600)), interval: Int(interval)))
    }

    public func poll(deviceCode: String) throws(RequestFailure) -> PollAnswer {
        let answer = try send("/v1/device/token", ["grant_type": "urn:ietf:params:oauth:grant-type:device_code",
                                                   "device_code": .string(deviceCode), "client_id": "lib"])
        if answer.status == 400, answer.isJSON, let error = answer.json?["error"]?.stringValue {
            switch error {
            case "authorization_pending": return .pending
            case "slow_down": return .slowDown
            case "access_denied": return .denied
            case "expired_token", "invalid_grant": return .expired
            default: break
            }
        }
        if let failure = api.failure(for: answer) { throw .transport(failure) }
        guard answer.status == 200 else { throw api.unexpected(answer, to: Self.tokenRequest) }
        guard answer.isJSON, let token = (answer.json?["access_token"] ?? answer.json?["token"])?.stringValue, !token.isEmpty else {
            throw .notFromServer("200 without a token", api, answer)
        }
        return .token(token)
    }

    /// Approves the device showing `userCode`, as the API's token's user.
    public func approve(userCode: String) throws(RequestFailure) -> ApproveAnswer {
        let answer = try send("/v1/device/approve", ["user_code": .string(userCode)])
        if answer.isProblemJSON {
            switch answer.status {
            case 404 where answer.problemDetail.hasPrefix("No such route"): return .notOffered
            case 404: return .unknown(answer.problemDetail)
            case 409: return .decided(answer.problemDetail)
            case 410: return .expired(answer.problemDetail)
            default: break
            }
        }
        if let failure = api.failure(for: answer) { throw .transport(failure) }
        guard answer.status == 200 else { throw api.unexpected(answer, to: Self.approveRequest) }
        return .approved(username: answer.json?["account"]?["username"]?.stringValue ?? "")
    }

    private func send(_ target: String, _ fields: JSONValue) throws(RequestFailure) -> HTTPResponse {
        do {
            return try api.send("POST", target, json: fields)
        } catch {
            throw .transport(error)
        }
    }
}
