#if canImport(Glibc)
import Glibc
#endif
import CCurl

/// `-v`: one line per request on standard error, as `GIT_TRACE` or
/// `GH_DEBUG` do: method, URL, status (or libcurl's error), time, whether
/// the connection was reused, and the proxy. Never a header: the token is
/// in Authorization, which is not traced, and URLs carry no secret; a
/// proxy's credentials are left out (`ProxySetting.display`).
///
///     lib: GET http://127.0.0.1:8080/v1/books/b-7 -> 200 in 3 ms, connection reused, direct
struct RequestTrace {
    let method: String
    let url: String
    /// The HTTP status, or nil when the transfer failed (`error` says why).
    let status: Int?
    let error: String?
    let milliseconds: Double
    let reused: Bool
    let proxy: ProxySetting?

    var line: String {
        let outcome = status.map(String.init) ?? "failed (\(error ?? "unknown error"))"
        let time = milliseconds < 10 ? String(Double(Int(milliseconds * 10)) / 10) : String(Int(milliseconds.rounded()))
        return "lib: \(method) \(url) -> \(outcome) in \(time) ms, "
            + (reused ? "connection reused" : "new connection") + ", "
            + (proxy.map { "via proxy \($0.display)" } ?? "direct")
    }

    static func write(_ trace: RequestTrace) {
        let text = trace.line + "\n"
        _ = text.withCString { Glibc.write(STDERR_FILENO, $0, strlen($0)) }
    }
}

extension CurlEasyHandle {
    /// What libcurl says about the transfer just made, for `-v`.
    func traced(_ method: String, _ url: String, code: CURLcode, proxy: ProxySetting?) -> RequestTrace {
        var status = 0
        var connects = 0
        var microseconds: curl_off_t = 0
        _ = ccurl_getinfo_long(rawHandle, CURLINFO_RESPONSE_CODE, &status)
        _ = ccurl_getinfo_long(rawHandle, CURLINFO_NUM_CONNECTS, &connects)
        _ = ccurl_getinfo_offset(rawHandle, CURLINFO_TOTAL_TIME_T, &microseconds)
        let failed = code != CURLE_OK || status == 0
        return RequestTrace(method: method, url: url, status: failed ? nil : status,
                            error: failed ? String(cString: ccurl_easy_strerror(code)) : nil,
                            milliseconds: Double(microseconds) / 1000, reused: connects == 0 && !failed, proxy: proxy)
    }
}
