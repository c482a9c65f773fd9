#!/usr/bin/env python3
"""A 1,000-item POST /v2/writes on PostgreSQL while 32 readers read and a
few v1 writers write other books (issue 46): the batch's time, the readers'
latency and the lone writers' latency, p50/p99, during the batches only.

The writers show what the change feed's lock costs: every writer takes it
(PostgreSQL advisory lock), so a writer waits while a batch holds it.

Usage (not part of `make test`; a release or debug lib-server):
  scripts/with-postgres.sh bench/batch-beside-readers.py BIN_DIR/lib-server [LABEL]
Environment: BATCHES (default 5), READERS (32), WRITERS (2), ITEMS (1000).
Each run creates its own database in the cluster $LIB_TEST_POSTGRES names.
"""
import http.client
import json
import os
import random
import subprocess
import sys
import threading
import time
import uuid

server_bin = sys.argv[1]
label = sys.argv[2] if len(sys.argv) > 2 else os.path.basename(os.path.dirname(server_bin))
batches = int(os.environ.get("BATCHES", "5"))
readers = int(os.environ.get("READERS", "32"))
writers = int(os.environ.get("WRITERS", "2"))
items = int(os.environ.get("ITEMS", "1000"))
cluster = os.environ["LIB_TEST_POSTGRES"]

database = "bench_" + uuid.uuid4().hex[:8]
psql = os.path.join(os.environ.get("PG_BIN", "/usr/lib/postgresql/15/bin"), "psql")
subprocess.run([psql, cluster, "-qc", f"CREATE DATABASE {database}"], check=True)
uri = cluster.rsplit("/", 1)[0] + "/" + database

server = subprocess.Popen([server_bin, "--db", uri, "--listen", "127.0.0.1:0", "--demo"],
                          stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
try:
    line = server.stdout.readline()
    host, port = line.strip().rsplit("//", 1)[1].split(":")
    port = int(port)

    def connect():
        return http.client.HTTPConnection(host, port, timeout=120)

    def call(conn, method, path, token=None, body=None, headers=()):
        h = dict(headers)
        if token:
            h["Authorization"] = "Bearer " + token
        if body is not None:
            h["Content-Type"] = "application/json"
        conn.request(method, path, body=body, headers=h)
        answer = conn.getresponse()
        return answer.status, answer.getheader("ETag"), answer.read()

    def sign_in(user):
        status, _, body = call(connect(), "POST", "/v1/sessions",
                               body=json.dumps({"username": user, "password": user + "-demo"}))
        assert status == 201, body
        return json.loads(body)["token"]

    alice, bob, carol = sign_in("alice"), sign_in("bob"), sign_in("carol")
    batch_conn = connect()

    def batch(writes):
        started = time.monotonic()
        status, _, body = call(batch_conn, "POST", "/v2/writes", alice, json.dumps({"writes": writes}))
        elapsed = time.monotonic() - started
        assert status == 200, body
        results = json.loads(body)["results"]
        bad = [r for r in results if r["status"] >= 300]
        assert not bad, bad[:3]
        return elapsed, results

    # The books the measured batches update, made by an unmeasured batch.
    _, made = batch([{"key": f"seed-{i}", "path": f"books/m-{i}", "op": "create",
                      "document": {"title": f"Bench {i}", "copies": 1}} for i in range(items)])
    etags = {f"m-{i}": r["etag"] for i, r in enumerate(made)}

    measuring = threading.Event()
    stop = threading.Event()
    lock = threading.Lock()
    read_latencies, write_latencies = [], []

    def reader(n):
        conn = connect()
        while not stop.is_set():
            if n % 2 == 0:
                path = f"/v1/books/b-{random.randint(1, 20)}"
            else:
                path = f"/v1/books/m-{random.randrange(items)}"
            started = time.monotonic()
            status, _, _ = call(conn, "GET", path, carol)
            elapsed = time.monotonic() - started
            assert status == 200, status
            if measuring.is_set():
                with lock:
                    read_latencies.append(elapsed)

    def writer(n):
        conn = connect()
        book = f"b-{n + 1}"
        _, etag, _ = call(conn, "GET", "/v1/books/" + book, bob)
        while not stop.is_set():
            started = time.monotonic()
            status, etag, body = call(conn, "PUT", "/v1/books/" + book, bob,
                                      json.dumps({"title": "Written " + uuid.uuid4().hex}),
                                      [("If-Match", etag), ("Idempotency-Key", uuid.uuid4().hex)])
            elapsed = time.monotonic() - started
            assert status == 200, body
            if measuring.is_set():
                with lock:
                    write_latencies.append(elapsed)

    threads = [threading.Thread(target=reader, args=(n,)) for n in range(readers)]
    threads += [threading.Thread(target=writer, args=(n,)) for n in range(writers)]
    for t in threads:
        t.start()
    time.sleep(1)

    batch_times = []
    for run in range(batches):
        writes = [{"key": f"u-{run}-{i}", "path": f"books/m-{i}", "op": "update", "if_match": etags[f"m-{i}"],
                   "set": {"copies": run + 2}, "seen": {"copies": run + 1}} for i in range(items)]
        measuring.set()
        elapsed, results = batch(writes)
        measuring.clear()
        batch_times.append(elapsed)
        etags = {f"m-{i}": r["etag"] for i, r in enumerate(results)}
        time.sleep(0.5)
    stop.set()
    for t in threads:
        t.join()

    def percentile(values, p):
        ordered = sorted(values)
        return ordered[min(len(ordered) - 1, int(len(ordered) * p))] * 1000 if ordered else float("nan")

    print(f"{label}: {batches} batches of {items} updates, {readers} readers, {writers} v1 writers")
    print(f"  batch       median {percentile(batch_times, 0.5):7.0f} ms   "
          f"min {min(batch_times) * 1000:7.0f} ms   max {max(batch_times) * 1000:7.0f} ms")
    print(f"  readers     p50 {percentile(read_latencies, 0.5):6.1f} ms   p99 {percentile(read_latencies, 0.99):6.1f} ms"
          f"   ({len(read_latencies)} reads during the batches)")
    print(f"  v1 writers  p50 {percentile(write_latencies, 0.5):6.1f} ms   p99 {percentile(write_latencies, 0.99):6.1f} ms"
          f"   max {percentile(write_latencies, 1.0):6.1f} ms   ({len(write_latencies)} writes during the batches)")
finally:
    server.terminate()
    server.wait()
