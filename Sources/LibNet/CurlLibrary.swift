import CCurl

/// libcurl, loaded into the process on first use (see Sources/CCurl).
public enum CurlLibrary {
    /// Loads libcurl if it is not loaded yet. Throws the dlopen reason when
    /// it cannot be loaded; later calls return the same result at once.
    public static func load() throws(CurlLoadError) {
        if ccurl_load() != 0 {
            throw CurlLoadError(reason: String(cString: ccurl_load_error()))
        }
    }

    /// Whether libcurl is in this process already. Never loads it.
    public static var isLoaded: Bool { ccurl_is_loaded() != 0 }

    /// libcurl's version string once loaded, e.g. "libcurl/7.88.1 OpenSSL/3.0.19".
    public static var version: String? { ccurl_version().map { String(cString: $0) } }
}

/// libcurl could not be loaded; `reason` is the dynamic loader's.
public struct CurlLoadError: Error, Sendable, Equatable, CustomStringConvertible {
    public let reason: String
    public var description: String { "libcurl could not be loaded: \(reason)" }
}
