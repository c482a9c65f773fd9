/// A route's path as written in the route table, such as
/// `/v1/books/{id}/history`: literal segments, and `{name}` segments that
/// match any one segment and hand it to the route as a parameter.
struct RoutePattern: Sendable, Equatable, CustomStringConvertible {
    enum Segment: Sendable, Equatable {
        case literal(String)
        case parameter(String)
    }

    let segments: [Segment]

    init(_ text: String) {
        segments = text.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map { segment in
            segment.hasPrefix("{") && segment.hasSuffix("}")
                ? .parameter(String(segment.dropFirst().dropLast())) : .literal(String(segment))
        }
    }

    /// The parameters, by name, when `path` (the segments after the first
    /// `/`) has this shape; nil when it does not. A parameter matches any
    /// one segment, even an empty one: what the route makes of it (a 404
    /// for an id that names no book) is the route's business.
    func match(_ path: [Substring]) -> [String: String]? {
        guard path.count == segments.count else { return nil }
        var parameters: [String: String] = [:]
        for (segment, part) in zip(segments, path) {
            switch segment {
            case .literal(let text): if part != text { return nil }
            case .parameter(let name): parameters[name] = String(part)
            }
        }
        return parameters
    }

    var description: String {
        "/" + segments.map { segment in
            switch segment {
            case .literal(let text): return text
            case .parameter(let name): return "{\(name)}"
            }
        }.joined(separator: "/")
    }
}
