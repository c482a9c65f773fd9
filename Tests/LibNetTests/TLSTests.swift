import Foundation
import Testing
import TestSupport

/// TLS failures against `openssl s_server` on loopback with certificates
/// made for the test.
@Suite(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl"), "needs /usr/bin/openssl"))
struct TLSTests {
    /// A self-signed certificate for `subjectAltName`, and its key.
    static func makeCertificate(in directory: TemporaryDirectory, name: String, subjectAltName: String) throws
        -> (certificate: String, key: String)
    {
        let certificate = directory.file("\(name).pem"), key = directory.file("\(name).key")
        let result = try CommandRunner.run(
            "/usr/bin/openssl",
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", key,
                "-out", certificate, "-days", "2", "-subj", "/CN=\(name)", "-addext", "subjectAltName=\(subjectAltName)",
            ])
        guard result.status == 0 else { throw TLSTestError.openssl(result.description) }
        return (certificate, key)
    }

    /// `openssl s_server -www` on 127.0.0.1 at a free port; killed on release.
    final class TLSServer: @unchecked Sendable {
        let process = Process()
        /// Held while the server runs: nobody else takes the port meanwhile.
        private let reservation: LoopbackPortReservation
        var port: UInt16 { UInt16(reservation.port) }

        init(certificate: String, key: String) throws {
            reservation = try LoopbackPortReservation()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
            process.arguments = ["s_server", "-accept", "127.0.0.1:\(port)", "-cert", certificate, "-key", key, "-www", "-quiet"]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            process.standardInput = FileHandle.nullDevice
            try process.run()
            // Wait until it accepts connections.
            // Until it accepts connections; 30 s bounds a server that never starts, and one that exited fails at once.
            let deadline = Date().addingTimeInterval(30)
            while process.isRunning && Date() < deadline {
                if Self.accepts(port) { return }
                usleep(20_000)
            }
            throw TLSTestError.serverDidNotStart
        }

        deinit {
            // SIGKILL: s_server can inherit a blocked SIGTERM from the test
            // runner's thread, and would then never end.
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }

        private static func accepts(_ port: UInt16) -> Bool {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            defer { close(fd) }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            inet_pton(AF_INET, "127.0.0.1", &address.sin_addr)
            return withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
                }
            }
        }
    }

    enum TLSTestError: Error { case openssl(String), serverDidNotStart }

    @Test func selfSignedCertificateIsUntrusted() throws {
        let directory = try TemporaryDirectory("libnet-tls")
        let (certificate, key) = try Self.makeCertificate(in: directory, name: "self", subjectAltName: "IP:127.0.0.1")
        let server = try TLSServer(certificate: certificate, key: key)
        let result = try NetCheck.run(["request", "https://127.0.0.1:\(server.port)/", "--pending", "1"])
        #expect(result.classification == "tls-untrusted", "\(result)")
        #expect(
            result.explanation
                == "Couldn't connect securely to 127.0.0.1:\(server.port): its certificate is not trusted. For a self-hosted server, set LIB_CA_BUNDLE to its CA certificate. 1 write is saved on this device."
        )
        #expect(result.status == 1)

        // The same server is trusted once its certificate is the CA bundle,
        // from the environment or from the per-transport option.
        let trusted = try NetCheck.run(["request", "https://127.0.0.1:\(server.port)/"], environment: ["LIB_CA_BUNDLE": certificate])
        #expect(trusted.stdout == "ok 200\n", "\(trusted)")
        let option = try NetCheck.run(["request", "https://127.0.0.1:\(server.port)/", "--cacert", certificate])
        #expect(option.stdout == "ok 200\n", "\(option)")
    }

    @Test func certificateForAnotherNameIsNameMismatch() throws {
        let directory = try TemporaryDirectory("libnet-tls")
        let (certificate, key) = try Self.makeCertificate(
            in: directory, name: "books.example", subjectAltName: "DNS:books.example")
        let server = try TLSServer(certificate: certificate, key: key)
        let result = try NetCheck.run(
            ["request", "https://127.0.0.1:\(server.port)/"], environment: ["LIB_CA_BUNDLE": certificate])
        #expect(result.classification == "tls-name-mismatch", "\(result)")
        #expect(
            result.explanation == "Couldn't connect securely to 127.0.0.1:\(server.port): its certificate is for another name — a captive portal or a proxy may be intercepting (sign in to the network), or the server URL names the wrong host.")
        #expect(result.status == 75)
    }

    @Test func tlsToPlainHTTPPortIsHandshakeFailure() throws {
        let peer = try ScriptedPeer { _, _ in .sendAndClose(httpResponse(400, "Bad Request")) }
        let result = try NetCheck.run(["request", peer.url(scheme: "https")])
        #expect(result.classification == "tls-handshake", "\(result)")
        #expect(
            result.explanation
                == "Couldn't connect securely to 127.0.0.1:\(peer.port): the TLS handshake failed (is it an HTTPS port?).")
        #expect(result.status == 1)
    }

    @Test func unreadableCABundleIsReported() throws {
        let peer = try ScriptedPeer { _, _ in .sendAndClose([]) }
        let result = try NetCheck.run(
            ["request", peer.url(scheme: "https")], environment: ["LIB_CA_BUNDLE": "/nonexistent/ca.pem"])
        #expect(result.classification == "tls-ca-bundle", "\(result)")
        #expect(result.status == 1)
    }
}
