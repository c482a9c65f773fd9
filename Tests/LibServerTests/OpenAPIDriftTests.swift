import Foundation
import Testing
import TestSupport

/// docs/openapi.yaml against what lib-server really does and what
/// docs/PROTOCOL.md says: every route the server answers and every status
/// its code can produce appear in the document, and every documented
/// operation is one the server serves. (schemathesis, run by `make test`,
/// checks the bodies, headers and content types of real answers.)
@Suite struct OpenAPIDriftTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static let document = OpenAPIOutline(yaml: (try? String(contentsOf: root.appendingPathComponent("docs/openapi.yaml"), encoding: .utf8)) ?? "")

    static let methods = ["GET", "PUT", "POST", "DELETE", "PATCH"]

    @Test func theDocumentIsOpenAPI31WithOperations() {
        #expect(Self.document.version == "3.1.0")
        #expect(Self.document.operations.count >= 9)
        for (operation, statuses) in Self.document.operations {
            #expect(!statuses.isEmpty, "\(operation) documents no status")
        }
    }

    /// Each documented operation is served (neither 404 for its path nor 405
    /// for its method), and on each documented path the server's `Allow`
    /// names exactly the documented methods.
    @Test func everyRouteTheServerAnswersIsDocumentedAndBack() throws {
        let demo = try DemoServer()
        let alice = try demo.signIn("alice")
        for path in Self.document.paths {
            let target = path.replacingOccurrences(of: "{id}", with: "b-7")
            let documented = Set(Self.document.operations.keys.filter { $0.path == path }.map(\.method))
            for method in Self.methods {
                // Signing out revokes the token it carries: give it one of its own.
                let session = method == "DELETE" && path == "/v1/sessions/current" ? try demo.signIn("alice") : alice
                let answer = try session.client.request(
                    method, target, headers: [("Authorization", "Bearer \(session.token)"), ("Content-Type", "application/json")],
                    body: method == "GET" || method == "DELETE" ? nil : "{}")
                if documented.contains(method) {
                    #expect(answer.status != 405 && !(answer.status == 404 && answer.problemDetail.hasPrefix("No such route")),
                            "\(method) \(path) is documented but the server answers \(answer.status) \(answer.problemDetail)")
                } else {
                    #expect(answer.status == 405, "\(method) \(path) is not documented but the server answers \(answer.status)")
                    let allowed = Set((answer.header("Allow") ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
                    #expect(allowed == documented, "\(path): the server allows \(allowed), the document \(documented)")
                }
            }
        }
        // A path nobody documented is not a route.
        #expect(try alice.get("/v1/undocumented").status == 404)
    }

    /// Requests chosen to bring out each answer an operation has: the server
    /// gives the answer the probe expects, and the document lists that status
    /// for that operation (the scan of the code below cannot tell which
    /// operation a status belongs to; schemathesis only meets the answers its
    /// generated requests happen to get).
    @Test func eachOperationsAnswersAreDocumentedForIt() throws {
        let demo = try DemoServer()
        let alice = try demo.signIn("alice"), carol = try demo.signIn("carol")
        let etag = try alice.etag(of: "b-7")
        let dune = #"{"id":"b-7","title":"Dune","author":"Frank Herbert","year":1965,"copies":2,"tags":[]}"#
        let json = ("Content-Type", "application/json")
        func send(_ method: String, _ target: String, as session: SignedInClient? = nil, _ headers: [(String, String)] = [],
                  body: String? = nil) throws -> HTTPTestResponse {
            let auth = session.map { [("Authorization", "Bearer \($0.token)")] } ?? []
            return try demo.client().request(method, target, headers: auth + headers, body: body)
        }
        let form = ("Content-Type", "application/x-www-form-urlencoded")
        func deviceCodes() throws -> (device: String, user: String) {
            let json = try send("POST", "/v1/device/code", [form], body: "client_id=lib").json
            return (json?["device_code"]?.stringValue ?? "", json?["user_code"]?.stringValue ?? "")
        }
        let key = UUID().uuidString
        let probes: [(operation: String, status: Int, answer: () throws -> HTTPTestResponse)] = [
            ("POST /v1/sessions", 201, { try send("POST", "/v1/sessions", [json], body: #"{"username":"bob","password":"bob-demo"}"#) }),
            ("POST /v1/sessions", 400, { try send("POST", "/v1/sessions", [json], body: "[]") }),
            ("POST /v1/sessions", 400, { try send("POST", "/v1/sessions", [json], body: "{}") }),
            ("POST /v1/sessions", 400, { try send("POST", "/v1/sessions", [json], body: "{") }),
            ("POST /v1/sessions", 401, { try send("POST", "/v1/sessions", [json], body: #"{"username":"bob","password":"no"}"#) }),
            ("POST /v1/sessions", 415, { try send("POST", "/v1/sessions", [("Content-Type", "text/plain")], body: "{}") }),
            ("DELETE /v1/sessions/current", 204, { try send("DELETE", "/v1/sessions/current", as: try demo.signIn("bob")) }),
            ("DELETE /v1/sessions/current", 401, { try send("DELETE", "/v1/sessions/current") }),
            ("GET /v1/me", 200, { try send("GET", "/v1/me", as: alice) }),
            ("GET /v2/capabilities", 200, { try send("GET", "/v2/capabilities") }),
            ("POST /v2/writes", 200, {
                try send("POST", "/v2/writes", as: alice, [json],
                         body: #"{"writes":[{"key":"\#(UUID().uuidString)","path":"books/v2-new","op":"create","document":{"title":"New"}}]}"#)
            }),
            ("POST /v2/writes", 400, { try send("POST", "/v2/writes", as: alice, [json], body: "{}") }),
            ("POST /v2/writes", 401, { try send("POST", "/v2/writes", [json], body: #"{"writes":[]}"#) }),
            ("POST /v2/writes", 415, { try send("POST", "/v2/writes", as: alice, [("Content-Type", "text/plain")], body: "{}") }),
            ("POST /v2/writes", 422, { try send("POST", "/v2/writes", as: alice, [json], body: "[]") }),
            ("GET /v1/me", 401, { try send("GET", "/v1/me", [("Authorization", "Bearer lbt_unknown")]) }),
            ("GET /v1/books", 200, { try send("GET", "/v1/books?limit=2", as: alice) }),
            ("GET /v1/books", 400, { try send("GET", "/v1/books?limit=0", as: alice) }),
            ("GET /v1/books", 401, { try send("GET", "/v1/books") }),
            ("GET /v1/changes", 200, { try send("GET", "/v1/changes", as: alice) }),
            ("GET /v1/changes", 400, { try send("GET", "/v1/changes?since=not-a-cursor", as: alice) }),
            ("GET /v1/changes", 401, { try send("GET", "/v1/changes") }),
            ("GET /v1/changes", 410, { try send("GET", "/v1/changes?since=0-0", as: alice) }),
            ("GET /v1/books/{id}", 200, { try send("GET", "/v1/books/b-7", as: alice) }),
            ("GET /v1/books/{id}", 304, { try send("GET", "/v1/books/b-7", as: alice, [("If-None-Match", etag)]) }),
            ("GET /v1/books/{id}", 412, { try send("GET", "/v1/books/b-7", as: alice, [("If-Match", #""0-none""#)]) }),
            ("GET /v1/books/{id}", 400, { try send("GET", "/v1/books/b-7", as: alice, [("If-Match", "b-7")]) }),
            ("GET /v1/books/{id}", 400, { try send("GET", "/v1/books/b!7", as: alice) }),
            ("GET /v1/books/{id}", 404, { try send("GET", "/v1/books/b-999", as: alice) }),
            ("GET /v1/books/{id}/history", 200, { try send("GET", "/v1/books/b-7/history", as: alice) }),
            ("GET /v1/books/{id}/history", 404, { try send("GET", "/v1/books/b-999/history", as: alice) }),
            ("GET /v1/schemas/book", 200, { try send("GET", "/v1/schemas/book", as: alice) }),
            ("GET /v1/schemas/book", 304, {
                let tag = try send("GET", "/v1/schemas/book", as: alice).header("ETag") ?? "*"
                return try send("GET", "/v1/schemas/book", as: alice, [("If-None-Match", tag)])
            }),
            ("PUT /v1/books/{id}", 400, { try send("PUT", "/v1/books/b-7", as: alice, [json, ("If-Match", etag)], body: dune) }),
            ("PUT /v1/books/{id}", 401, { try send("PUT", "/v1/books/b-7", [json, ("Idempotency-Key", UUID().uuidString)], body: dune) }),
            ("PUT /v1/books/{id}", 403, {
                try send("PUT", "/v1/books/b-7", as: carol, [json, ("If-Match", etag), ("Idempotency-Key", UUID().uuidString)], body: dune)
            }),
            ("PUT /v1/books/{id}", 412, {
                try send("PUT", "/v1/books/b-7", as: alice, [json, ("If-Match", #""0-none""#), ("Idempotency-Key", UUID().uuidString)], body: dune)
            }),
            ("PUT /v1/books/{id}", 415, {
                try send("PUT", "/v1/books/b-7", as: alice, [("Content-Type", "text/plain"), ("If-Match", etag), ("Idempotency-Key", UUID().uuidString)], body: dune)
            }),
            ("PUT /v1/books/{id}", 422, {
                try send("PUT", "/v1/books/b-7", as: alice, [json, ("If-Match", etag), ("Idempotency-Key", UUID().uuidString)], body: #"{"id":"b-7","year":"x"}"#)
            }),
            ("PUT /v1/books/{id}", 428, { try send("PUT", "/v1/books/b-7", as: alice, [json, ("Idempotency-Key", UUID().uuidString)], body: dune) }),
            ("PUT /v1/books/{id}", 201, {
                try send("PUT", "/v1/books/b-new", as: alice, [json, ("If-None-Match", "*"), ("Idempotency-Key", UUID().uuidString)],
                         body: dune.replacingOccurrences(of: "b-7", with: "b-new"))
            }),
            ("PUT /v1/books/{id}", 200, { try send("PUT", "/v1/books/b-7", as: alice, [json, ("If-Match", etag), ("Idempotency-Key", key)], body: dune) }),
            ("DELETE /v1/books/{id}", 422, { try send("DELETE", "/v1/books/b-7", as: alice, [("If-Match", etag), ("Idempotency-Key", key)]) }),
            ("DELETE /v1/books/{id}", 428, { try send("DELETE", "/v1/books/b-3", as: alice, [("Idempotency-Key", UUID().uuidString)]) }),
            ("DELETE /v1/books/{id}", 412, {
                try send("DELETE", "/v1/books/b-3", as: alice, [("If-Match", #""0-none""#), ("Idempotency-Key", UUID().uuidString)])
            }),
            ("DELETE /v1/books/{id}", 404, { try send("DELETE", "/v1/books/b-999", as: alice, [("If-Match", "*"), ("Idempotency-Key", UUID().uuidString)]) }),
            ("DELETE /v1/books/{id}", 204, { try send("DELETE", "/v1/books/b-3", as: alice, [("If-Match", "*"), ("Idempotency-Key", UUID().uuidString)]) }),
            ("POST /v1/device/code", 200, { try send("POST", "/v1/device/code", [form], body: "client_id=lib") }),
            ("POST /v1/device/code", 415, { try send("POST", "/v1/device/code", [("Content-Type", "text/plain")], body: "x") }),
            ("POST /v1/device/token", 400, { try send("POST", "/v1/device/token", [form], body: "device_code=lbd_unknown") }),
            ("POST /v1/device/token", 200, {
                let code = try deviceCodes()
                _ = try send("POST", "/v1/device/approve", as: alice, [json], body: #"{"user_code":"\#(code.user)"}"#)
                return try send("POST", "/v1/device/token", [form], body: "device_code=\(code.device)")
            }),
            ("POST /v1/device/approve", 200, { try send("POST", "/v1/device/approve", as: alice, [json], body: #"{"user_code":"\#(try deviceCodes().user)"}"#) }),
            ("POST /v1/device/approve", 401, { try send("POST", "/v1/device/approve", [json], body: #"{"user_code":"BCDF-GHJK"}"#) }),
            ("POST /v1/device/approve", 404, { try send("POST", "/v1/device/approve", as: alice, [json], body: #"{"user_code":"BCDF-GHJK"}"#) }),
            ("POST /v1/device/approve", 409, {
                let code = try deviceCodes().user
                _ = try send("POST", "/v1/device/approve", as: alice, [json], body: #"{"user_code":"\#(code)"}"#)
                return try send("POST", "/v1/device/approve", as: alice, [json], body: #"{"user_code":"\#(code)"}"#)
            }),
            ("GET /device", 200, { try send("GET", "/device?code=BCDF-GHJK") }),
            ("POST /device", 200, { try send("POST", "/device", [form], body: "user_code=\(try deviceCodes().user)&action=deny") }),
            ("POST /device", 400, { try send("POST", "/device", [form], body: "user_code=BCDF-GHJK&action=deny") }),
            ("POST /device", 401, {
                try send("POST", "/device", [form], body: "user_code=\(try deviceCodes().user)&username=bob&password=no&action=approve")
            }),
            ("POST /device", 403, { try send("POST", "/device", [form, ("Origin", "https://elsewhere.example")], body: "user_code=x") }),
            ("POST /device", 415, { try send("POST", "/device", [json], body: "{}") }),
        ]
        for probe in probes {
            let parts = probe.operation.split(separator: " ").map(String.init)
            let answer = try probe.answer()
            #expect(answer.status == probe.status, "\(probe.operation): \(answer.status) \(answer.problemDetail), not \(probe.status)")
            let documented = Self.document.operations[.init(method: parts[0], path: parts[1])] ?? []
            #expect(documented.contains(answer.status), "\(probe.operation) answers \(answer.status), which docs/openapi.yaml does not list for it")
        }
        #expect(Set(probes.map(\.operation)) == Set(Self.document.operations.keys.map(\.description)), "an operation has no probe")
    }

    /// The HTTP layer's own answers (before any route) are listed on every operation.
    @Test func theHTTPLayersAnswersAreListedOnEveryOperation() throws {
        let demo = try DemoServer(extraArguments: ["--max-connections-per-peer", "1"])
        let first = try demo.client()
        _ = try first.request("GET", "/v1/me")
        let second = try demo.client()
        let refused = try second.readResponse()
        #expect(refused.status == 429 && refused.header("Retry-After") != nil, "\(refused.status) \(refused.text)")
        for (operation, statuses) in Self.document.operations {
            for status in [400, 405, 408, 413, 429, 431, 500, 501, 503, 505] {
                #expect(statuses.contains(status), "\(operation) does not list \(status)")
            }
        }
    }

    /// Every route literal in the server's code (`"/v1/..."` or a route
    /// array `["v1", ...]`) is a documented path.
    @Test func everyRouteInTheServerCodeIsDocumented() throws {
        let documented = Set(Self.document.paths.map { $0.replacingOccurrences(of: "{id}", with: "*") })
        for route in try ServerCode.routes() {
            let matched = documented.contains { pattern in Self.matches(route, pattern) }
            #expect(matched, "the server code routes \(route), which docs/openapi.yaml does not document")
        }
    }

    /// Every status the server's code writes as a literal appears in the document.
    @Test func everyStatusInTheServerCodeIsDocumented() throws {
        let documented = Set(Self.document.operations.values.flatMap { $0 })
        let produced = try ServerCode.statuses()
        #expect(produced.count >= 15, "the scan found only \(produced.keys.sorted())")
        for (status, file) in produced.sorted(by: { $0.key < $1.key }) {
            #expect(documented.contains(status), "\(file) produces \(status), which docs/openapi.yaml does not document")
        }
    }

    /// The prose and the document describe the same operations.
    @Test func protocolMarkdownAndTheDocumentNameTheSameOperations() throws {
        let prose = try String(contentsOf: Self.root.appendingPathComponent("docs/PROTOCOL.md"), encoding: .utf8)
        var described: Set<OpenAPIOutline.Operation> = []
        for line in prose.split(separator: "\n") where line.hasPrefix("## `") || line.hasPrefix("### `") {
            let heading = line.drop { $0 == "#" || $0 == " " || $0 == "`" }.prefix { $0 != "`" }.split(separator: " ")
            guard heading.count == 2 else { continue }
            let path = heading[1].split(separator: "[").first.map(String.init) ?? ""
            described.insert(.init(method: String(heading[0]), path: path))
        }
        #expect(!described.isEmpty)
        #expect(described == Set(Self.document.operations.keys),
                "PROTOCOL.md: \(described.map(\.description).sorted()); openapi.yaml: \(Self.document.operations.keys.map(\.description).sorted())")
    }

    /// `/v1/books/b-7/history` against `/v1/books/*/history`: one segment per `*`.
    static func matches(_ route: String, _ pattern: String) -> Bool {
        let a = route.split(separator: "/"), b = pattern.split(separator: "/")
        return a.count == b.count && zip(a, b).allSatisfy { $0 == $1 || $1 == "*" || $0 == "*" }
    }
}

/// The part of docs/openapi.yaml the drift tests need: its paths, their
/// operations and each operation's statuses. The document is written in
/// block style with two-space indentation, which is all this reads.
struct OpenAPIOutline {
    struct Operation: Hashable, CustomStringConvertible {
        let method: String
        let path: String
        var description: String { "\(method) \(path)" }
    }

    var version = ""
    var paths: [String] = []
    var operations: [Operation: Set<Int>] = [:]

    init(yaml: String) {
        var inPaths = false
        var path: String?
        var operation: Operation?
        var inResponses = false
        for rawLine in yaml.split(separator: "\n", omittingEmptySubsequences: true) {
            let line = String(rawLine)
            let indent = line.prefix { $0 == " " }.count
            let text = line.trimmingCharacters(in: .whitespaces)
            if text.hasPrefix("#") || text.isEmpty { continue }
            if indent == 0 {
                inPaths = text == "paths:"
                if text.hasPrefix("openapi:") { version = text.dropFirst(8).trimmingCharacters(in: .whitespaces) }
                continue
            }
            guard inPaths else { continue }
            let key = text.split(separator: ":", maxSplits: 1).first.map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "\" ")) } ?? ""
            switch indent {
            case 2:
                path = key
                paths.append(key)
                operation = nil
            case 4:
                inResponses = false
                if let path, ["get", "put", "post", "delete", "patch", "head", "options"].contains(key) {
                    operation = Operation(method: key.uppercased(), path: path)
                    operations[operation!] = []
                } else {
                    operation = nil
                }
            case 6:
                inResponses = operation != nil && key == "responses"
            case 8:
                if inResponses, let operation, let status = Int(key) { operations[operation, default: []].insert(status) }
            default:
                break
            }
        }
    }
}

/// What lib-server's source says it answers, read from Sources/LibServer and
/// Sources/LibHTTPServer.
enum ServerCode {
    static let directories = ["Sources/LibServer", "Sources/LibHTTPServer"]

    static func files() throws -> [(name: String, text: String)] {
        var result: [(String, String)] = []
        for directory in directories {
            let url = OpenAPIDriftTests.root.appendingPathComponent(directory)
            let names = try FileManager.default.contentsOfDirectory(atPath: url.path).filter { $0.hasSuffix(".swift") }.sorted()
            for name in names {
                // The reason-phrase table names every status HTTP has; the fault
                // routes (tests only) answer what a test asks for.
                if name == "HTTPStatus.swift" || name.hasPrefix("Fault") { continue }
                result.append(("\(directory)/\(name)", try String(contentsOf: url.appendingPathComponent(name), encoding: .utf8)))
            }
        }
        return result
    }

    /// Status literals: `status: 412`, `.json(201, ...)`, `status == 304 ? ...`.
    static func statuses() throws -> [Int: String] {
        let pattern = try NSRegularExpression(pattern: #"(?:status:\s*|\.json\(\s*|status\s*==\s*|\?\s*)([1-5][0-9][0-9])\b"#)
        var found: [Int: String] = [:]
        for (name, text) in try files() {
            for line in text.split(separator: "\n") where !line.trimmingCharacters(in: .whitespaces).hasPrefix("//") {
                let line = String(line)
                for match in pattern.matches(in: line, range: NSRange(line.startIndex..., in: line)) {
                    if let range = Range(match.range(at: 1), in: line), let status = Int(line[range]), status >= 200 {
                        found[status] = found[status] ?? name
                    }
                }
            }
            // Ternaries between two statuses: `live == nil ? 201 : 200`.
            let ternary = try NSRegularExpression(pattern: #"\?\s*([1-5][0-9][0-9])\s*:\s*([1-5][0-9][0-9])"#)
            for match in ternary.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                for group in 1...2 {
                    if let range = Range(match.range(at: group), in: text), let status = Int(text[range]) { found[status] = found[status] ?? name }
                }
            }
        }
        return found
    }

    /// Route literals: `"/v1/books"`-like strings and `["v1", "books", ...]` arrays
    /// (a non-literal element becomes `*`).
    static func routes() throws -> Set<String> {
        let slashed = try NSRegularExpression(pattern: #""(/v1/[A-Za-z0-9_/{}-]*)""#)
        let array = try NSRegularExpression(pattern: #"\[\s*"v1"\s*(,\s*[^\],]+)*\]"#)
        var found: Set<String> = []
        for (_, text) in try files() {
            for match in slashed.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                if let range = Range(match.range(at: 1), in: text) {
                    found.insert(String(text[range]).replacingOccurrences(of: #"\{[^}]*\}"#, with: "*", options: .regularExpression))
                }
            }
            for match in array.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                guard let range = Range(match.range, in: text) else { continue }
                let elements = text[range].dropFirst().dropLast().split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
                let segments = elements.map { $0.hasPrefix("\"") && $0.hasSuffix("\"") ? String($0.dropFirst().dropLast()) : "*" }
                found.insert("/" + segments.joined(separator: "/"))
            }
        }
        return found
    }
}
