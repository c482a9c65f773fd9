import LibHTTPServer

/// How far a device is behind the change feed, said in the answers that
/// carry feed positions (docs/PROTOCOL.md, "Behind"): a client names its
/// device (`Lib-Device`) on feed reads and batches, and gives its cursor
/// with a batch (`Lib-Feed-Since`); the answer says how many books changed
/// after it other than by that device (`Lib-Feed-Behind`), so that a
/// client shows `↓N` without asking again.
enum FeedBehind {
    static let deviceHeader = "Lib-Device"
    static let sinceHeader = "Lib-Feed-Since"
    static let behindHeader = "Lib-Feed-Behind"

    /// The device the request names: 1 to 64 letters, digits, `-` or `_`;
    /// anything else names none (its writes then count for every device).
    static func device(of request: HTTPRequest) -> String? {
        guard let name = request.headers[deviceHeader], (1...64).contains(name.utf8.count),
              name.utf8.allSatisfy({ $0.isASCIIAlphanumeric || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") })
        else { return nil }
        return name
    }
}

extension UInt8 {
    fileprivate var isASCIIAlphanumeric: Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(self)
            || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(self)
    }
}
