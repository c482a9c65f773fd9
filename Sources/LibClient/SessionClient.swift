import LibBase
import LibHTTP
import LibJSON
import LibNet

/// Protocol v1's sessions: a password for a token (`POST /v1/sessions`),
/// who the token is (`GET /v1/me`), and its end (`DELETE
/// /v1/sessions/current`). Answers are typed; the command layer words them.
public struct SessionClient {
    /// Who a token belongs to, as the server said.
    public struct Identity: Sendable, Equatable {
        public let userID: String
        public let username: String

        public init(userID: String, username: String) {
            self.userID = userID
            self.username = username
        }
    }

    public enum SignInAnswer: Sendable, Equatable {
        case token(String)
        /// 401: wrong user name or password.
        case refused
    }

    public enum IdentityAnswer: Sendable, Equatable {
        case identity(Identity)
        /// 401: the server does not know the token.
        case unknownToken
    }

    public let api: ServerAPI
    /// The request that asks who the token is, as messages name it.
    public static let identityRequest = "GET /v1/me"

    public init(api: ServerAPI) {
        self.api = api
    }

    /// `POST /v1/sessions` with the user name and password.
    public func signIn(user: String, password: String) throws(RequestFailure) -> SignInAnswer {
        let answer: HTTPResponse
        do {
            answer = try api.send("POST", "/v1/sessions", json: ["username": .string(user), "password": .string(password)])
        } catch {
            throw .transport(error)
        }
        if answer.status == 401 { return .refused }
        if let failure = api.failure(for: answer) { throw .transport(failure) }
        guard answer.status == 201, answer.isJSON else { throw api.unexpected(answer, to: "POST /v1/sessions") }
        guard let token = answer.json?["token"]?.stringValue, !token.isEmpty else {
            throw .notFromServer("201 without a token", api, answer)
        }
        return .token(token)
    }

    /// `GET /v1/me` with the client's token, and the server's clock (its
    /// `Date`, seconds since 1970) when it said.
    public func identity(timeout: Double? = nil) throws(RequestFailure) -> (answer: IdentityAnswer, serverDate: Int?) {
        let answer: HTTPResponse
        do {
            answer = try api.send("GET", "/v1/me", timeout: timeout)
        } catch {
            throw .transport(error)
        }
        let serverDate = answer.headers["Date"].flatMap { HTTPDate.secondsSince1970(imfFixdate: $0) }
        if answer.status == 401 { return (.unknownToken, serverDate) }
        if let failure = api.failure(for: answer) { throw .transport(failure) }
        guard answer.status == 200 else { throw api.unexpected(answer, to: Self.identityRequest) }
        guard answer.isJSON, let json = answer.json, let id = json["id"]?.stringValue,
              let username = json["username"]?.stringValue
        else { throw .notFromServer("\(answer.seen) where a user was expected", api, answer) }
        return (.identity(Identity(userID: id, username: username)), serverDate)
    }

    /// `DELETE /v1/sessions/current`: best effort, within `timeout` seconds;
    /// true when the server answered that the session is over (204, or 401:
    /// it was over already).
    @discardableResult
    public func signOut(timeout: Double? = nil) -> Bool {
        guard let answer = try? api.send("DELETE", "/v1/sessions/current", timeout: timeout) else { return false }
        return answer.status == 204 || answer.status == 401
    }
}
