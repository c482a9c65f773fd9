import Foundation
import LibJSON
import Testing
import TestSupport

/// A running lib-server with the demo data, and signed-in clients for it.
final class DemoServer: @unchecked Sendable {
    let directory: TemporaryDirectory
    let server: ServerProcess

    init(extraArguments: [String] = [], environment: [String: String]? = nil) throws {
        directory = try TemporaryDirectory("lib-server-test")
        server = try ServerProcess(database: try TestDatabase.fresh(in: directory), extraArguments: extraArguments,
                                   environment: environment)
    }

    /// A second server on the same database as `other`.
    init(sharing other: DemoServer, extraArguments: [String] = []) throws {
        directory = other.directory
        server = try ServerProcess(database: other.server.databasePath, extraArguments: extraArguments)
    }

    func client(timeout: Double = 10) throws -> HTTPTestClient { try HTTPTestClient(port: server.port, timeout: timeout) }

    /// Signs in as a demo user and returns a client that sends the token.
    func signIn(_ user: String) throws -> SignedInClient {
        let client = try client()
        let answer = try client.request("POST", "/v1/sessions", headers: [("Content-Type", "application/json")],
                                        body: #"{"username":"\#(user)","password":"\#(user)-demo"}"#)
        try #require(answer.status == 201, "login as \(user): \(answer.status) \(answer.text)")
        let json = try JSONParser.parse(answer.body)
        let token = try #require(json["token"]?.stringValue)
        let id = try #require(json["account"]?["id"]?.stringValue)
        return SignedInClient(client: client, token: token, userID: id)
    }

    /// The history of a book as (version, updated_by) pairs.
    func history(_ id: String, as session: SignedInClient) throws -> [JSONValue] {
        let answer = try session.get("/v1/books/\(id)/history")
        return try JSONParser.parse(answer.body)["items"]?.arrayValue ?? []
    }
}

struct SignedInClient {
    let client: HTTPTestClient
    let token: String
    let userID: String

    func get(_ target: String, headers: [(String, String)] = []) throws -> HTTPTestResponse {
        try client.request("GET", target, headers: [("Authorization", "Bearer \(token)")] + headers)
    }

    func put(_ id: String, _ body: String, ifMatch: String? = nil, create: Bool = false, key: String? = UUID().uuidString,
             extraHeaders: [(String, String)] = []) throws -> HTTPTestResponse {
        var headers = [("Authorization", "Bearer \(token)"), ("Content-Type", "application/json")]
        if let ifMatch { headers.append(("If-Match", ifMatch)) }
        if create { headers.append(("If-None-Match", "*")) }
        if let key { headers.append(("Idempotency-Key", key)) }
        return try client.request("PUT", "/v1/books/\(id)", headers: headers + extraHeaders, body: body)
    }

    func delete(_ id: String, ifMatch: String?, key: String = UUID().uuidString) throws -> HTTPTestResponse {
        var headers = [("Authorization", "Bearer \(token)"), ("Idempotency-Key", key)]
        if let ifMatch { headers.append(("If-Match", ifMatch)) }
        return try client.request("DELETE", "/v1/books/\(id)", headers: headers)
    }

    func etag(of id: String) throws -> String {
        try #require(try get("/v1/books/\(id)").header("ETag"))
    }
}

extension HTTPTestResponse {
    var json: JSONValue? { try? JSONParser.parse(body) }
    var problemDetail: String { json?["detail"]?.stringValue ?? "" }
}
