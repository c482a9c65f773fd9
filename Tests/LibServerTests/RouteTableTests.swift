import Foundation
import LibHTTPServer
import LibJSON
@testable import LibServer
import Testing
import TestSupport

/// The route table is the one list dispatch, 404 and 405 come from: these
/// ask a real `LibraryService` (in this process, on its own database) for
/// every path of the table with every method, and for paths it lacks.
@Suite struct RouteTableTests {
    static let methods = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]

    /// A request as the HTTP layer would hand it over.
    static func request(_ method: String, _ path: String) -> HTTPRequest {
        HTTPRequest(method: method, target: path, path: path, query: [:], headers: HTTPHeaders(), body: [],
                    remoteAddress: "127.0.0.1:40000")
    }

    static func response(_ reply: HTTPReply) throws -> HTTPResponse {
        guard case .respond(let response) = reply else { throw RouteTestFailure.noResponse }
        return response
    }

    /// `{id}` and any other parameter become `b-7`.
    static func example(_ pattern: RoutePattern) -> String {
        pattern.description.replacingOccurrences(of: #"\{[a-z]+\}"#, with: "b-7", options: .regularExpression)
    }

    @Test(arguments: [false, true])
    func aMethodAPathLacksIs405WithAllowNamingExactlyTheTablesMethods(faultControl: Bool) throws {
        let directory = try TemporaryDirectory("route-table")
        let service = LibraryService(store: try ServerDatabase.open(directory.file("server.sqlite")), allowsFaultControl: faultControl)
        let table = service.routes
        // Protocols v1 and v2's 10 patterns, device sign-in's 4 (issue 50), the fault controls' 3.
        #expect(table.patterns.count == (faultControl ? 17 : 14), "\(table.patterns)")
        for pattern in table.patterns {
            let tableMethods = table.methods(for: pattern)
            let path = Self.example(pattern)
            for method in Self.methods where !tableMethods.contains(method) {
                let answer = try Self.response(service.handle(Self.request(method, path)))
                #expect(answer.status == 405, "\(method) \(path)")
                #expect(answer.headers["Allow"] == tableMethods.joined(separator: ", "), "\(method) \(path)")
                let problem = try JSONParser.parse(answer.body)
                #expect(problem["detail"]?.stringValue == "\(path) accepts \(tableMethods.joined(separator: ", ")), not \(method)")
                #expect(answer.headers["Content-Type"] == "application/problem+json")
            }
            for method in tableMethods {
                // Served: 401 without a token, or the route's own answer.
                let answer = try Self.response(service.handle(Self.request(method, path)))
                let detail = (try? JSONParser.parse(answer.body))?["detail"]?.stringValue ?? ""
                #expect(answer.status != 405 && !detail.hasPrefix("No such route"), "\(method) \(path): \(answer.status) \(detail)")
            }
        }
    }

    /// docs/openapi.yaml documents exactly the table's operations.
    @Test func theTableHasTheOperationsDocsOpenAPIYamlDocuments() {
        let routes = LibraryService.protocolRoutes + LibraryService.deviceGrantRoutes
        let table = Set(routes.map { OpenAPIOutline.Operation(method: $0.method, path: $0.pattern.description) })
        let documented = Set(OpenAPIDriftTests.document.operations.keys)
        #expect(table.count == routes.count, "a row is in the table twice")
        #expect(table.subtracting(documented).isEmpty, "in the table, not documented: \(table.subtracting(documented))")
        #expect(documented.subtracting(table).isEmpty, "documented, not in the table: \(documented.subtracting(table))")
    }

    @Test(arguments: ["/", "/v1", "/v1/", "/v2/books", "/v1/book", "/v1/sessions/other", "/v1/books/b-7/history/3",
                      "/v1/books/b-7/versions", "/v1/schemas", "/v1/me/", "/_test/faults", "/_test", "/favicon.ico"])
    func aPathNoRouteHasIs404ForEveryMethod(path: String) throws {
        let directory = try TemporaryDirectory("route-table")
        let service = LibraryService(store: try ServerDatabase.open(directory.file("server.sqlite")))
        for method in Self.methods {
            let answer = try Self.response(service.handle(Self.request(method, path)))
            #expect(answer.status == 404, "\(method) \(path)")
            #expect(answer.headers["Allow"] == nil)
            #expect(try JSONParser.parse(answer.body)["detail"]?.stringValue == "No such route: \(path)")
        }
    }

    @Test func patternsMatchWholeSegmentsAndNameTheirParameters() {
        let pattern = RoutePattern("/v1/books/{id}/history")
        #expect(pattern.description == "/v1/books/{id}/history")
        #expect(pattern.match(["v1", "books", "b-7", "history"]) == ["id": "b-7"])
        #expect(pattern.match(["v1", "books", "", "history"]) == ["id": ""])
        #expect(pattern.match(["v1", "books", "b-7"]) == nil)
        #expect(pattern.match(["v1", "books", "b-7", "history", ""]) == nil)
        #expect(pattern.match(["v1", "book", "b-7", "history"]) == nil)
        #expect(RoutePattern("/v1/me").match(["v1", "me"]) == [:])
    }

    /// The first row with the method answers; `Allow` lists each method once, in table order.
    @Test func theFirstMatchingRowAnswersAndAllowKeepsTableOrder() throws {
        let table = RouteTable(routes: [
            Route("GET", "/v1/things/{id}", .anyone { _, _ in HTTPResponse(status: 200) }),
            Route("GET", "/v1/things/new", .anyone { _, _ in HTTPResponse(status: 299) }),
            Route("DELETE", "/v1/things/new", .anyone { _, _ in HTTPResponse(status: 204) }),
            Route("PUT", "/v1/things/{id}", .anyone { _, _ in HTTPResponse(status: 200) }),
        ])
        guard case .route(let route, let call) = table.match(Self.request("GET", "/v1/things/new")) else {
            Issue.record("GET /v1/things/new has a route")
            return
        }
        #expect(route.pattern.description == "/v1/things/{id}" && call.parameter("id") == "new")
        guard case .wrongMethod(let allowed) = table.match(Self.request("POST", "/v1/things/new")) else {
            Issue.record("POST /v1/things/new is a 405")
            return
        }
        #expect(allowed == ["GET", "DELETE", "PUT"])
        guard case .noRoute = table.match(Self.request("GET", "/v1/things")) else {
            Issue.record("GET /v1/things has no route")
            return
        }
    }
}

enum RouteTestFailure: Error { case noResponse }
