#!/usr/bin/env python3
"""Holds COUNT idle keep-alive connections open to a lib-server (each made
one authenticated GET, then sits), then reports the server's RSS and how long
an ordinary client waits for an answer meanwhile; exits 1 on a budget miss.
Usage: idle-connections.py PORT TOKEN SERVER_PID COUNT"""
import socket
import sys
import time

port, token, pid, count = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
rss_budget_mb, answer_budget_ms = 100, 50
request = (f"GET /v1/me HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAuthorization: Bearer {token}\r\n\r\n").encode()


def exchange(sock):
    sock.sendall(request)
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            raise SystemExit("the server closed a connection")
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = next(int(line.split(b":")[1]) for line in head.split(b"\r\n") if line.lower().startswith(b"content-length:"))
    while len(body) < length:
        body += sock.recv(65536)
    if not head.startswith(b"HTTP/1.1 200"):
        raise SystemExit(f"unexpected answer: {head[:40]!r}")


def rss_mb():
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


held = []
started = time.monotonic()
for _ in range(count):
    sock = socket.create_connection(("127.0.0.1", port))
    exchange(sock)
    held.append(sock)
opened = time.monotonic() - started
time.sleep(1)
rss = rss_mb()
answers = []
for _ in range(20):
    begin = time.monotonic()
    with socket.create_connection(("127.0.0.1", port)) as sock:
        exchange(sock)
    answers.append((time.monotonic() - begin) * 1000)
    time.sleep(0.05)
# Still open: every held connection answers again.
for sock in held[:: max(1, count // 100)]:
    exchange(sock)
worst = max(answers)
print(f"{count} idle keep-alive connections (opened in {opened:.1f} s): lib-server RSS {rss:.1f} MB (budget < {rss_budget_mb}); "
      f"an ordinary GET meanwhile: median {sorted(answers)[10]:.1f} ms, worst {worst:.1f} ms of 20 (budget < {answer_budget_ms})")
sys.exit(0 if rss < rss_budget_mb and worst < answer_budget_ms else 1)
