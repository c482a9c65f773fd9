import Foundation
import Testing
import TestSupport

/// Waits until something accepts connections on 127.0.0.1:`port` (the
/// timeout is a bound for a tool that never starts, not an expected time).
func waitUntilListening(_ port: Int, timeout: Double = 30) throws {
    let deadline = monotonicNow() + timeout
    while monotonicNow() < deadline {
        if (try? HTTPTestClient(port: port, timeout: 1)) != nil { return }
        usleep(50_000)
    }
    throw IntermediaryError.setup("nothing listens on 127.0.0.1:\(port)")
}

enum IntermediaryError: Error { case setup(String) }

/// Debian's tinyproxy, a real forward proxy, on a loopback port, with its
/// own configuration and log; stopped (and started again on the same port)
/// by the test.
final class TinyProxy: @unchecked Sendable {
    /// Held for the proxy's life, restarts included: nobody else takes the port meanwhile.
    private let reservation: LoopbackPortReservation
    var port: Int { reservation.port }
    let directory: TemporaryDirectory
    private var process: Process?
    static let path = "/usr/bin/tinyproxy"
    static var isInstalled: Bool { FileManager.default.isExecutableFile(atPath: path) }

    var url: String { "http://127.0.0.1:\(port)" }
    var log: String { (try? String(contentsOfFile: directory.file("tinyproxy.log"), encoding: .utf8)) ?? "" }

    init() throws {
        directory = try TemporaryDirectory("lib-e2e-tinyproxy")
        reservation = try LoopbackPortReservation()
        let configuration = """
            Port \(port)
            Listen 127.0.0.1
            Timeout 15
            MaxClients 20
            LogLevel Connect
            LogFile "\(directory.file("tinyproxy.log"))"
            DisableViaHeader Yes
            """
        try configuration.write(toFile: directory.file("tinyproxy.conf"), atomically: true, encoding: .utf8)
        try start()
    }

    func start() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.path)
        process.arguments = ["-d", "-c", directory.file("tinyproxy.conf")]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        self.process = process
        try waitUntilListening(port)
    }

    /// SIGKILL: a child of the test process inherits its blocked signals
    /// (SIGTERM among them), and the proxy holds nothing worth a clean exit.
    func stop() {
        guard let process, process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        self.process = nil
    }

    deinit { stop() }
}

/// A private CA made with openssl for one test, and a server certificate it
/// signed for 127.0.0.1 and localhost.
struct TestCertificateAuthority {
    let certificate: String
    let serverCertificate: String
    let serverKey: String

    init(in directory: TemporaryDirectory) throws {
        func openssl(_ arguments: [String]) throws {
            let result = try CommandRunner.run("/usr/bin/openssl", arguments)
            guard result.status == 0 else { throw IntermediaryError.setup(result.description) }
        }
        certificate = directory.file("ca.pem")
        serverCertificate = directory.file("server.pem")
        serverKey = directory.file("server.key")
        let caKey = directory.file("ca.key"), request = directory.file("server.csr"), extensions = directory.file("server.ext")
        try openssl(["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", caKey,
                     "-out", certificate, "-days", "2", "-subj", "/CN=lib test CA",
                     "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign"])
        try openssl(["req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", serverKey,
                     "-out", request, "-subj", "/CN=127.0.0.1"])
        try "subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n"
            .write(toFile: extensions, atomically: true, encoding: .utf8)
        try openssl(["x509", "-req", "-in", request, "-CA", certificate, "-CAkey", caKey, "-CAcreateserial",
                     "-out", serverCertificate, "-days", "2", "-extfile", extensions])
    }
}

/// Debian's nginx as a TLS reverse proxy in front of a lib-server, gzip on
/// (for JSON too), in one process (`master_process off`, so that SIGKILL
/// stops all of it), with its files in its own directory.
final class NginxReverseProxy: @unchecked Sendable {
    private let reservation: LoopbackPortReservation
    var port: Int { reservation.port }
    let directory: TemporaryDirectory
    let authority: TestCertificateAuthority
    private let process = Process()
    static let path = "/usr/sbin/nginx"
    static var isInstalled: Bool { FileManager.default.isExecutableFile(atPath: path) }

    var url: String { "https://127.0.0.1:\(port)" }
    var accessLog: String { (try? String(contentsOfFile: directory.file("access.log"), encoding: .utf8)) ?? "" }

    convenience init(upstreamPort: Int) throws {
        try self.init(upstreamPorts: [upstreamPort])
    }

    /// nginx in front of several lib-servers: the `backup` ones get requests
    /// only while every other one is down (so a test knows which instance a
    /// request meets first).
    /// `balancing`: plain HTTP, the upstream with passive health checks
    /// and kept-alive connections, failed requests passed to the next
    /// instance, as docs/DEPLOY.md's load-balancing recipe.
    init(upstreamPorts: [Int], backupPorts: [Int] = [], balancing: Bool = false) throws {
        directory = try TemporaryDirectory("lib-e2e-nginx")
        authority = try TestCertificateAuthority(in: directory)
        reservation = try LoopbackPortReservation()
        let d = directory.path
        let configuration = """
            daemon off;
            master_process off;
            user root;
            worker_processes 1;
            error_log \(d)/error.log;
            pid \(d)/nginx.pid;
            events { worker_connections 64; }
            http {
                log_format lib '$request_method $request_uri $status';
                access_log \(d)/access.log lib;
                client_body_temp_path \(d)/body;
                proxy_temp_path \(d)/proxy;
                fastcgi_temp_path \(d)/fastcgi;
                uwsgi_temp_path \(d)/uwsgi;
                scgi_temp_path \(d)/scgi;
                gzip on;
                gzip_types application/json application/problem+json;
                gzip_min_length 1;
                gzip_proxied any;
                upstream lib_servers {
            \((upstreamPorts.map { "        server 127.0.0.1:\($0)\(balancing ? " max_fails=1 fail_timeout=10s" : "");" } + backupPorts.map { "        server 127.0.0.1:\($0) backup;" }).joined(separator: "\n"))
                    \(balancing ? "keepalive 16;" : "")
                }
                server {
                    listen 127.0.0.1:\(port)\(balancing ? "" : " ssl");
                    \(balancing ? "" : "ssl_certificate \(authority.serverCertificate);")
                    \(balancing ? "" : "ssl_certificate_key \(authority.serverKey);")
                    location / {
                        \(balancing ? "proxy_next_upstream error timeout http_502 http_503; proxy_next_upstream_tries 2;" : "")
                        proxy_pass http://lib_servers;
                        proxy_http_version 1.1;
                        proxy_set_header Connection "";
                        proxy_set_header Host $http_host;
                    }
                }
            }
            """
        try configuration.write(toFile: directory.file("nginx.conf"), atomically: true, encoding: .utf8)
        process.executableURL = URL(fileURLWithPath: Self.path)
        process.arguments = ["-p", d, "-c", directory.file("nginx.conf")]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        try waitUntilListening(port)
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }
}
