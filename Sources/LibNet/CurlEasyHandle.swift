import CCurl
import LibBase

/// One libcurl easy handle and the buffers it fills. libcurl keeps the
/// connection to the last server open inside the handle, so reusing the
/// handle reuses the connection (https://curl.se/libcurl/c/libcurl-easy.html).
/// Not thread-safe: `CurlTransport` serialises access.
final class CurlEasyHandle {
    private let handle: UnsafeMutableRawPointer
    var rawHandle: UnsafeMutableRawPointer { handle }
    private let body: UnsafeMutablePointer<ccurl_buffer>
    private let headerBlock: UnsafeMutablePointer<ccurl_buffer>
    private let errorBuffer: UnsafeMutablePointer<CChar>

    /// Loads libcurl if needed and makes a handle; failures name `endpoint`.
    init(for endpoint: ServerOrigin) throws(TransportFailure) {
        do {
            try CurlLibrary.load()
        } catch {
            throw TransportFailure(kind: .libcurlUnavailable(reason: error.reason), endpoint: endpoint)
        }
        guard let handle = ccurl_easy_init() else {
            throw TransportFailure(kind: .other(reason: "libcurl could not create a handle"), endpoint: endpoint)
        }
        self.handle = handle
        body = .allocate(capacity: 1)
        body.initialize(to: ccurl_buffer())
        headerBlock = .allocate(capacity: 1)
        headerBlock.initialize(to: ccurl_buffer())
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE))
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
    }

    deinit {
        ccurl_easy_cleanup(handle)
        ccurl_buffer_release(body)
        ccurl_buffer_release(headerBlock)
        body.deallocate()
        headerBlock.deallocate()
        errorBuffer.deallocate()
    }

    /// Performs one request. The handle's options are reset first, which
    /// keeps its open connections, TLS sessions and DNS cache
    /// (https://curl.se/libcurl/c/curl_easy_reset.html).
    func perform(
        _ request: HTTPRequest, endpoint: ServerOrigin, configuration: TransportConfiguration
    ) throws(TransportFailure) -> HTTPResponse {
        let totalTimeout = min(request.timeout ?? configuration.totalTimeout, configuration.totalTimeout)
        // A budget shorter than the connect timeout caps the connect too.
        let connectTimeout = min(configuration.connectTimeout, totalTimeout)
        let proxy = ProxySetting.forEndpoint(endpoint, environment: configuration.proxyEnvironment)
        ccurl_easy_reset(handle)
        ccurl_buffer_clear(body)
        ccurl_buffer_clear(headerBlock)
        body.pointee.limit = configuration.maxAnswerBytes > 0 ? configuration.maxAnswerBytes : 0
        headerBlock.pointee.limit = Self.maxHeaderBytes
        errorBuffer[0] = 0

        let headerLines: [String]
        switch Self.headerLines(for: request) {
        case .success(let lines): headerLines = lines
        case .failure(let problem): throw TransportFailure(kind: .invalidRequest(reason: problem.reason), endpoint: endpoint)
        }
        var headerList: UnsafeMutablePointer<curl_slist>?
        for line in headerLines {
            headerList = ccurl_slist_append(headerList, line)
        }
        defer { ccurl_slist_free_all(headerList) }

        var setupFailed: CURLcode = CURLE_OK
        func check(_ code: CURLcode) { if setupFailed == CURLE_OK { setupFailed = code } }
        check(ccurl_setopt_string(handle, CURLOPT_URL, request.url))
        // Only http and https, also for anything a redirect could name.
        check(ccurl_setopt_string(handle, CURLOPT_PROTOCOLS_STR, "http,https"))
        // Redirects are never followed, so the Authorization header can never
        // reach another host: a 3xx comes back as a response.
        check(ccurl_setopt_long(handle, CURLOPT_FOLLOWLOCATION, 0))
        check(ccurl_setopt_long(handle, CURLOPT_NOSIGNAL, 1))
        check(ccurl_setopt_long(handle, CURLOPT_SSL_VERIFYPEER, 1))
        check(ccurl_setopt_long(handle, CURLOPT_SSL_VERIFYHOST, 2))
        if let caBundle = configuration.caBundlePath {
            check(ccurl_setopt_string(handle, CURLOPT_CAINFO, caBundle))
        }
        check(ccurl_setopt_long(handle, CURLOPT_CONNECTTIMEOUT_MS, Self.milliseconds(connectTimeout)))
        check(ccurl_setopt_long(handle, CURLOPT_TIMEOUT_MS, Self.milliseconds(totalTimeout)))
        // An announced Content-Length over the limit fails before the body
        // is read (CURLE_FILESIZE_EXCEEDED); the write callback stops the rest.
        if configuration.maxAnswerBytes > 0 {
            check(ccurl_setopt_offset(handle, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(configuration.maxAnswerBytes)))
        }
        // lib chooses the proxy (or none) itself, so that what a failure
        // names is what libcurl used; "" turns libcurl's own lookup off.
        check(ccurl_setopt_string(handle, CURLOPT_PROXY, proxy?.url ?? ""))
        check(ccurl_setopt_string(handle, CURLOPT_NOPROXY, ""))
        check(ccurl_setopt_string(handle, CURLOPT_USERAGENT, configuration.userAgent))
        check(ccurl_setopt_pointer(handle, CURLOPT_ERRORBUFFER, errorBuffer))
        check(ccurl_setopt_pointer(handle, CURLOPT_HTTPHEADER, headerList))
        check(ccurl_collect_response(handle, body, headerBlock))
        if configuration.traceLevel >= 2 { check(ccurl_enable_redacted_trace(handle)) }

        let method = request.method.uppercased()
        let sendsBody = !request.body.isEmpty || ["POST", "PUT", "PATCH"].contains(method)
        switch method {
        case "GET" where !sendsBody: check(ccurl_setopt_long(handle, CURLOPT_HTTPGET, 1))
        case "HEAD": check(ccurl_setopt_long(handle, CURLOPT_NOBODY, 1))
        default: check(ccurl_setopt_string(handle, CURLOPT_CUSTOMREQUEST, method))
        }

        let code: CURLcode = request.body.withUnsafeBytes { bytes in
            if sendsBody {
                // POSTFIELDS does not copy: the bytes stay pinned for the call.
                check(ccurl_setopt_pointer(handle, CURLOPT_POSTFIELDS, UnsafeMutableRawPointer(mutating: bytes.baseAddress)))
                check(ccurl_setopt_offset(handle, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(bytes.count)))
            }
            guard setupFailed == CURLE_OK else { return setupFailed }
            return ccurl_easy_perform(handle)
        }
        if configuration.traceLevel >= 1 { RequestTrace.write(traced(method, request.url, code: code, proxy: proxy)) }

        if body.pointee.overflowed != 0 || code == CURLE_FILESIZE_EXCEEDED {
            throw TransportFailure(kind: .answerTooLarge(limit: configuration.maxAnswerBytes), endpoint: endpoint, proxy: proxy)
        }
        if headerBlock.pointee.overflowed != 0 {
            throw TransportFailure(kind: .notFromLibraryServer(seen: "more than \(Self.maxHeaderBytes / 1024) KB of headers"),
                                   endpoint: endpoint, proxy: proxy)
        }
        guard code == CURLE_OK else {
            let diagnostics = diagnose(code, host: endpoint.host)
            var kind = diagnostics.kind
            if proxy != nil, diagnostics.proxyConnectStatus >= 300 {
                kind = .proxyCouldNotReachServer(status: diagnostics.proxyConnectStatus)
            }
            let timeout: Duration? =
                switch kind {
                case .connectTimeout: connectTimeout
                case .responseTimeout: totalTimeout
                default: nil
                }
            throw TransportFailure(kind: kind, endpoint: endpoint, timeout: timeout, diagnostics: diagnostics, proxy: proxy)
        }
        if body.pointee.failed != 0 || headerBlock.pointee.failed != 0 {
            throw TransportFailure(kind: .other(reason: "out of memory reading the response"), endpoint: endpoint)
        }

        var status = 0
        _ = ccurl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)
        let parsed = HTTPResponse.parseHeaderBlock(Self.bytes(of: headerBlock))
        return HTTPResponse(status: status, reason: parsed.reason, headers: parsed.headers, body: Self.bytes(of: body),
                            proxy: proxy, receivedAt: Int(UnixClock.now()))
    }

    /// Collects what libcurl knows about a failed transfer.
    private func diagnose(_ code: CURLcode, host: String) -> CurlDiagnostics {
        var osErrno = 0
        var verifyResult = 0
        var connectTime: curl_off_t = 0
        var pretransferTime: curl_off_t = 0
        var nameLookupTime: curl_off_t = 0
        var primaryIP: UnsafePointer<CChar>?
        var connectStatus = 0
        var requestBytes = 0
        _ = ccurl_getinfo_long(handle, CURLINFO_HTTP_CONNECTCODE, &connectStatus)
        _ = ccurl_getinfo_long(handle, CURLINFO_REQUEST_SIZE, &requestBytes)
        _ = ccurl_getinfo_long(handle, CURLINFO_OS_ERRNO, &osErrno)
        _ = ccurl_getinfo_long(handle, CURLINFO_SSL_VERIFYRESULT, &verifyResult)
        _ = ccurl_getinfo_offset(handle, CURLINFO_CONNECT_TIME_T, &connectTime)
        _ = ccurl_getinfo_offset(handle, CURLINFO_PRETRANSFER_TIME_T, &pretransferTime)
        _ = ccurl_getinfo_offset(handle, CURLINFO_NAMELOOKUP_TIME_T, &nameLookupTime)
        _ = ccurl_getinfo_string(handle, CURLINFO_PRIMARY_IP, &primaryIP)
        let remoteAddress = primaryIP.map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 }
        var message = String(cString: errorBuffer)
        if message.isEmpty, let text = ccurl_easy_strerror(code) { message = String(cString: text) }
        var diagnostics = CurlDiagnostics(
            code: Int32(bitPattern: code.rawValue), osErrno: Int32(truncatingIfNeeded: osErrno),
            tlsVerifyResult: verifyResult, connected: connectTime > 0 || pretransferTime > 0,
            resolved: nameLookupTime > 0 || remoteAddress != nil || PathProbe.isIPLiteral(host),
            remoteAddress: remoteAddress, proxyConnectStatus: connectStatus, message: message)
        diagnostics.requestBytes = requestBytes
        return diagnostics
    }

    /// The most bytes of header lines read from one answer (libcurl has its
    /// own, larger cap per line).
    static let maxHeaderBytes = 256 * 1024

    /// The request's header lines in curl's syntax, plus the two that stop
    /// curl adding its own: "Expect:" (no 100-continue round trip before a
    /// body) and an empty "Content-Type:" (no form-urlencoded default).
    /// Header text with CR, LF or NUL is refused: it would smuggle headers.
    static func headerLines(for request: HTTPRequest) -> Result<[String], InvalidHeader> {
        var lines: [String] = []
        for field in request.headers {
            let name = field.name
            guard !name.isEmpty, name.utf8.allSatisfy({ $0 > 32 && $0 < 127 && $0 != UInt8(ascii: ":") }) else {
                return .failure(InvalidHeader(reason: "invalid header name"))
            }
            guard !field.value.utf8.contains(where: { $0 == 10 || $0 == 13 || $0 == 0 }) else {
                // The value is not quoted here: it may be a token.
                return .failure(InvalidHeader(reason: "header \(name) contains a line break"))
            }
            // "Name;" is curl's way to send a header with an empty value.
            lines.append(field.value.isEmpty ? "\(name);" : "\(name): \(field.value)")
        }
        if request.headers["Expect"] == nil { lines.append("Expect:") }
        if request.headers["Content-Type"] == nil { lines.append("Content-Type:") }
        return .success(lines)
    }

    /// A header that cannot be sent as given.
    struct InvalidHeader: Error {
        let reason: String
    }

    private static func milliseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        return max(1, Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000))
    }

    private static func bytes(of buffer: UnsafeMutablePointer<ccurl_buffer>) -> [UInt8] {
        guard let start = buffer.pointee.bytes, buffer.pointee.count > 0 else { return [] }
        return Array(UnsafeBufferPointer(start: start, count: buffer.pointee.count))
    }
}
