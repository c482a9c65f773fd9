extension LibraryService {
    /// Protocols v1 and v2 (docs/PROTOCOL.md), one row a route. A new route is one
    /// more row here; its 404s and 405s come with it.
    static let protocolRoutes: [Route] = [
        Route("POST", "/v1/sessions", .anyone { service, call in try service.login(call.request) }),
        Route("DELETE", "/v1/sessions/current", .signedIn { service, call, user in try service.logout(call.request, user) }),
        Route("GET", "/v1/me", .reading { _, _, user, _ in .json(200, try user().json) }),
        Route("GET", "/v1/schemas/book", .reading { service, call, _, _ in try service.bookSchemaAnswer(call.request) }),
        Route("GET", "/v1/books", .reading { service, call, _, db in try service.listBooks(call.request, in: db) }),
        Route("GET", "/v1/changes", .signedInMayWait { service, call, user in try service.changesOrWait(call.request, user: user) }),
        Route("GET", "/v1/books/{id}", .reading { service, call, _, db in try service.getBook(call.request, id: call.parameter("id"), in: db) }),
        Route("PUT", "/v1/books/{id}", .write { service, call, user in try service.writeBook(call.request, user: user, id: call.parameter("id")) }),
        Route("DELETE", "/v1/books/{id}", .write { service, call, user in try service.writeBook(call.request, user: user, id: call.parameter("id")) }),
        Route("GET", "/v1/books/{id}/history", .reading { service, call, _, db in try service.history(id: call.parameter("id"), in: db) }),
        // Protocol v2: many writes in one request.
        Route("GET", "/v2/capabilities", .anyone { service, _ in service.capabilities() }),
        Route("POST", "/v2/writes", .write { service, call, user in try service.writeBatch(call.request, user: user) }),
    ]
}
