/// The conditional request fields a request carries, parsed.
/// `If-Modified-Since` and `If-Unmodified-Since` are not read: the library
/// sends no `Last-Modified`, so they never apply (RFC 9110 §13.1.3, §13.1.4).
public struct Preconditions: Sendable, Equatable {
    public var ifMatch: EntityTagCondition?
    public var ifNoneMatch: EntityTagCondition?

    public init(ifMatch: EntityTagCondition? = nil, ifNoneMatch: EntityTagCondition? = nil) {
        self.ifMatch = ifMatch
        self.ifNoneMatch = ifNoneMatch
    }

    /// Why a field could not be parsed: the field's name.
    public struct InvalidField: Error, Sendable, Equatable {
        public let name: String
        public init(name: String) { self.name = name }
    }

    public init(headers: HTTPHeaders) throws(InvalidField) {
        func parse(_ name: String) throws(InvalidField) -> EntityTagCondition? {
            let values = headers.values(for: name)
            if values.isEmpty { return nil }
            guard let condition = EntityTagCondition(fieldValues: values) else { throw InvalidField(name: name) }
            return condition
        }
        self.init(ifMatch: try parse("If-Match"), ifNoneMatch: try parse("If-None-Match"))
    }

    public var isEmpty: Bool { ifMatch == nil && ifNoneMatch == nil }

    /// What the evaluation decided.
    public enum Outcome: Sendable, Equatable {
        /// Perform the method.
        case proceed
        /// 304: a GET or HEAD whose `If-None-Match` matched.
        case notModified
        /// 412, and which field failed.
        case failed(field: String)
    }

    /// RFC 9110 §13.2.2, steps 1 and 3 (2 and 4 concern dates, 5 ranges):
    /// `If-Match` first, compared strongly; then `If-None-Match`, compared
    /// weakly, which answers 304 to GET and HEAD and 412 to anything else.
    /// `current` is the selected representation's entity tag, or nil when
    /// there is none.
    public func evaluate(method: String, current: EntityTag?) -> Outcome {
        if let ifMatch, !ifMatch.matches(current, weakly: false) {
            return .failed(field: "If-Match")
        }
        if let ifNoneMatch, ifNoneMatch.matches(current, weakly: true) {
            return method == "GET" || method == "HEAD" ? .notModified : .failed(field: "If-None-Match")
        }
        return .proceed
    }
}
