import LibHTTPServer

/// The routes a server answers, in one list: dispatch, the 404 for a path
/// no route has and the 405 (with `Allow`) for a method a path lacks all
/// come from it, so they cannot disagree.
struct RouteTable: Sendable {
    let routes: [Route]

    init(routes: [Route]) {
        self.routes = routes.enumerated().map { index, route in
            var numbered = route
            numbered.index = index
            return numbered
        }
    }

    /// What the table says of a request.
    enum Match {
        /// The first row with the request's method and a pattern that fits its path.
        case route(Route, RouteCall)
        /// The path has routes, none for this method: `Allow` names theirs.
        case wrongMethod(allowed: [String])
        case noRoute
    }

    /// `segments`: the path's, as `segments(of:)` splits it.
    func match(_ request: HTTPRequest, segments: [Substring]? = nil) -> Match {
        // The path starts with "/": the first segment is the empty one before it.
        let path = Array((segments ?? Self.segments(of: request.path)).dropFirst())
        var allowed: [String] = []
        for route in routes {
            guard let parameters = route.pattern.match(path) else { continue }
            if route.method == request.method { return .route(route, RouteCall(request: request, parameters: parameters)) }
            if !allowed.contains(route.method) { allowed.append(route.method) }
        }
        return allowed.isEmpty ? .noRoute : .wrongMethod(allowed: allowed)
    }

    /// The parts of a path between its "/"s, empty ones kept (the first is
    /// the one before the leading "/"). Split on bytes: a "/" is one byte in UTF-8.
    static func segments(of path: String) -> [Substring] {
        path.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).map { Substring($0) }
    }

    /// The methods of the rows whose pattern is `pattern`, in table order.
    func methods(for pattern: RoutePattern) -> [String] {
        routes.filter { $0.pattern == pattern }.map(\.method)
    }

    /// Each pattern once, in table order.
    var patterns: [RoutePattern] {
        routes.map(\.pattern).reduce(into: []) { patterns, pattern in
            if !patterns.contains(pattern) { patterns.append(pattern) }
        }
    }
}

extension Problem {
    static func noSuchRoute(_ request: HTTPRequest) -> Problem { .notFound("No such route: \(request.path)") }

    static func methodNotAllowed(_ request: HTTPRequest, allowed: [String]) -> Problem {
        let list = allowed.joined(separator: ", ")
        return Problem(status: 405, detail: "\(request.path) accepts \(list), not \(request.method)",
                       headers: [("Allow", list)])
    }
}
