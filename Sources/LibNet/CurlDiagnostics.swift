import CCurl
import Glibc

/// What libcurl reported about a failed transfer: enough to classify it and
/// to debug it. Holds no request headers, so it can never carry a token.
public struct CurlDiagnostics: Sendable, Hashable, CustomStringConvertible {
    /// The CURLcode (e.g. 7 for CURLE_COULDNT_CONNECT).
    public var code: Int32
    /// CURLINFO_OS_ERRNO: the errno of the last failed socket call (0 if none).
    public var osErrno: Int32 = 0
    /// CURLINFO_SSL_VERIFYRESULT: OpenSSL's X509_V_* result (0 = OK).
    public var tlsVerifyResult: Int = 0
    /// Whether a TCP connection was established (or reused) before the failure.
    public var connected = false
    /// Whether the host name had resolved before the failure.
    public var resolved = true
    /// CURLINFO_PRIMARY_IP: the address connected to or tried, if any.
    public var remoteAddress: String?
    /// CURLINFO_HTTP_CONNECTCODE: the proxy's answer to CONNECT (0 if none).
    public var proxyConnectStatus: Int = 0
    /// libcurl's message (CURLOPT_ERRORBUFFER, else curl_easy_strerror).
    public var message = ""
    /// CURLINFO_REQUEST_SIZE: the request bytes written on a connection
    /// during the transfer. Not zero after a failure to connect when
    /// libcurl first wrote the request on a kept-alive connection that
    /// died, then failed to make a new one for its resend.
    public var requestBytes: Int = 0

    public var description: String {
        var text = "curl \(code), errno \(osErrno)"
        if tlsVerifyResult != 0 { text += ", verify \(tlsVerifyResult)" }
        if let remoteAddress { text += ", \(remoteAddress)" }
        if proxyConnectStatus != 0 { text += ", CONNECT \(proxyConnectStatus)" }
        if !message.isEmpty { text += ": \(message)" }
        return text
    }

    /// The kind of failure libcurl's numbers stand for. CURLcode meanings:
    /// https://curl.se/libcurl/c/libcurl-errors.html
    public var kind: TransportFailure.Kind {
        switch CURLcode(UInt32(bitPattern: code)) {
        case CURLE_COULDNT_RESOLVE_HOST:
            return .dnsFailure
        case CURLE_COULDNT_RESOLVE_PROXY:
            return .proxyNotResolved
        case CURLE_COULDNT_CONNECT:
            // curl reports every failed connect() as 7; the errno says why.
            switch osErrno {
            case ECONNREFUSED: return .connectionRefused
            case ENETUNREACH, EHOSTUNREACH, EACCES, EPERM, EADDRNOTAVAIL: return .noRoute
            case ETIMEDOUT: return .connectTimeout
            default: return .connectFailed(reason: message.isEmpty ? "libcurl error \(code)" : message)
            }
        case CURLE_OPERATION_TIMEDOUT:
            if !resolved { return .dnsFailure }
            return connected ? .responseTimeout : .connectTimeout
        case CURLE_PEER_FAILED_VERIFICATION:
            // With OpenSSL, a chain problem leaves OpenSSL's X509_V_ERR_* code
            // (18 self-signed, 19 self-signed in chain, 20 no local issuer...).
            // curl checks the name itself before it stores that result, so a
            // mismatch leaves curl's initial !X509_V_OK (1) (lib/vtls/openssl.c,
            // ossl_connect_step1 and servercert); newer OpenSSL-side checks
            // report X509_V_ERR_HOSTNAME_MISMATCH (62) or _IP_ADDRESS_MISMATCH (64).
            switch tlsVerifyResult {
            case 0, 1, 62, 64: return .tlsNameMismatch
            default: return .tlsUntrusted
            }
        case CURLE_SSL_CACERT_BADFILE, CURLE_SSL_CRL_BADFILE:
            return .tlsCABundleUnreadable
        case CURLE_SSL_ISSUER_ERROR, CURLE_SSL_INVALIDCERTSTATUS, CURLE_SSL_PINNEDPUBKEYNOTMATCH:
            return .tlsUntrusted
        case CURLE_SSL_CONNECT_ERROR, CURLE_SSL_CIPHER, CURLE_SSL_CERTPROBLEM, CURLE_USE_SSL_FAILED,
            CURLE_SSL_ENGINE_NOTFOUND, CURLE_SSL_ENGINE_SETFAILED, CURLE_SSL_ENGINE_INITFAILED,
            CURLE_SSL_SHUTDOWN_FAILED:
            return .tlsHandshake
        case CURLE_GOT_NOTHING, CURLE_PARTIAL_FILE, CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_HTTP2,
            CURLE_HTTP2_STREAM, CURLE_BAD_CONTENT_ENCODING:
            return .connectionLost
        case CURLE_WEIRD_SERVER_REPLY, CURLE_UNSUPPORTED_PROTOCOL:
            return .notHTTP
        case CURLE_URL_MALFORMAT:
            return .invalidRequest(reason: "malformed URL")
        default:
            return .other(reason: message.isEmpty ? "libcurl error \(code)" : message)
        }
    }
}
