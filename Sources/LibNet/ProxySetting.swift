import Glibc
import LibBase

/// The proxy a request goes through, chosen from the environment with
/// libcurl's own rules (https://curl.se/libcurl/c/CURLOPT_PROXY.html): for
/// `http://` URLs only the lowercase `http_proxy` (the uppercase one can be
/// set by a CGI request's `Proxy:` header), for `https://` `https_proxy` or
/// `HTTPS_PROXY`, else `all_proxy` or `ALL_PROXY`; `no_proxy`/`NO_PROXY`
/// lists the hosts that bypass it; a loopback server bypasses it unless
/// `LIB_PROXY_LOOPBACK=1`. lib decides and tells libcurl
/// (CURLOPT_PROXY, CURLOPT_NOPROXY), so that the proxy a failure names is
/// the one the request really went through.
public struct ProxySetting: Sendable, Hashable, CustomStringConvertible {
    /// The proxy's URL as libcurl takes it (credentials included, if any:
    /// never shown; see `description`).
    public let url: String
    /// The variable it came from, e.g. `https_proxy`.
    public let variable: String
    /// `scheme://host:port` without credentials, for the user's sentence.
    public let display: String

    /// `LIB_PROXY_LOOPBACK=1`: a server on this machine (localhost,
    /// 127.0.0.0/8, ::1) goes through the environment's proxy too. Without
    /// it, loopback traffic never does: a proxy would see the password at
    /// sign-in, and no other client tool sends loopback to a proxy by default.
    public static let loopbackVariable = "LIB_PROXY_LOOPBACK"

    /// The proxy for `endpoint` under `environment`, or nil for a direct connection.
    public static func forEndpoint(_ endpoint: ServerOrigin, environment: [String: String]) -> ProxySetting? {
        if isLoopback(endpoint.host), environment[loopbackVariable] != "1" { return nil }
        let names = endpoint.scheme == "http"
            ? ["http_proxy", "all_proxy", "ALL_PROXY"]
            : ["https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"]
        guard let name = names.first(where: { !(environment[$0] ?? "").isEmpty }), let value = environment[name] else {
            return nil
        }
        let noProxy = environment["no_proxy"].flatMap { $0.isEmpty ? nil : $0 } ?? environment["NO_PROXY"] ?? ""
        if bypasses(host: endpoint.host, noProxy: noProxy) { return nil }
        return ProxySetting(url: value, variable: name, display: displayForm(of: value))
    }

    /// `http://127.0.0.1:8888`, from a proxy value that may lack the scheme
    /// (libcurl's default is http) or carry `user:password@`.
    static func displayForm(of value: String) -> String {
        var rest = Substring(value)
        var scheme = "http"
        if let range = rest.firstRange(of: "://") {
            scheme = rest[..<range.lowerBound].lowercased()
            rest = rest[range.upperBound...]
        }
        if let end = rest.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) { rest = rest[..<end] }
        if let at = rest.lastIndex(of: "@") { rest = rest[rest.index(after: at)...] }
        return "\(scheme)://\(rest)"
    }

    /// Whether `no_proxy` names the host: `*`, the host itself, a domain it
    /// is in (with or without a leading dot), or an IPv4 range in CIDR form.
    static func bypasses(host: String, noProxy: String) -> Bool {
        let host = host.lowercased()
        let entries = noProxy.split(whereSeparator: { $0 == "," || $0 == " " }).map { $0.lowercased() }
        for var entry in entries {
            if entry == "*" { return true }
            if entry.hasPrefix("[") && entry.hasSuffix("]") { entry = String(entry.dropFirst().dropLast()) }
            if entry.hasPrefix(".") { entry.removeFirst() }
            if entry.isEmpty { continue }
            if host == entry || host.hasSuffix("." + entry) { return true }
            if entry.contains("/"), inIPv4Range(host, entry) { return true }
        }
        return false
    }

    static func isLoopback(_ host: String) -> Bool {
        let host = host.lowercased()
        return host == "localhost" || host.hasSuffix(".localhost") || host == "::1" || host == "[::1]"
            || inIPv4Range(host, "127.0.0.0/8")
    }

    private static func inIPv4Range(_ host: String, _ range: String) -> Bool {
        let parts = range.split(separator: "/")
        guard parts.count == 2, let bits = Int(parts[1]), (0...32).contains(bits) else { return false }
        var address = in_addr(), network = in_addr()
        guard inet_pton(AF_INET, host, &address) == 1, inet_pton(AF_INET, String(parts[0]), &network) == 1 else {
            return false
        }
        let mask: UInt32 = bits == 0 ? 0 : ~UInt32(0) << (32 - UInt32(bits))
        return UInt32(bigEndian: address.s_addr) & mask == UInt32(bigEndian: network.s_addr) & mask
    }

    public var description: String { "the proxy \(display) (set in \(variable))" }
}
