import LibJSON

/// The JSON of an RFC 9457 problem: the one builder of error bodies, for
/// the answers the HTTP layer makes itself and for lib-server's routes.
public enum ProblemBody {
    /// `type`, the standard `title` for `status`, `status`, `detail`, then `extra` members.
    public static func value(status: Int, detail: String, type: String = "about:blank",
                             extra: [(String, JSONValue)] = []) -> JSONValue {
        let title = HTTPStatus.reasonPhrase(status)
        var object = JSONObject([
            ("type", .string(type)), ("title", .string(title.isEmpty ? "Error" : title)),
            ("status", .integer(Int64(status))), ("detail", .string(detail)),
        ])
        for (key, value) in extra { object[key] = value }
        return .object(object)
    }

    static func json(status: Int, detail: String) -> [UInt8] {
        value(status: status, detail: detail).utf8Bytes
    }
}
