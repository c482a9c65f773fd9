#!/usr/bin/env python3
"""A TCP proxy that puts a server DELAY_MS away (one way), for tests and
benchmarks: this kernel has no netem.

    latency-proxy.py LISTEN_HOST:PORT TARGET_HOST:PORT DELAY_MS

Every byte is held DELAY_MS in each direction, in order; a new connection
pays one round trip (2 x DELAY_MS) before its first byte goes on, as a TCP
handshake would. Port 0 picks a free port; the first line on standard
output is `listening on HOST:PORT`. "The server 50 ms away" in this
project's notes means DELAY_MS=25 (a 50 ms round trip).
"""
import asyncio
import sys


def split(address):
    host, _, port = address.rpartition(":")
    return host.strip("[]") or "127.0.0.1", int(port)


async def carry(reader, writer, delay, ready):
    """Reads from one side and writes to the other, each chunk `delay`
    seconds after it arrived (and no earlier than `ready` + `delay`)."""
    loop = asyncio.get_running_loop()
    queue = asyncio.Queue()

    async def deliver():
        while True:
            due, data = await queue.get()
            wait = due - loop.time()
            if wait > 0:
                await asyncio.sleep(wait)
            if not data:
                try:
                    writer.write_eof()
                except (OSError, RuntimeError):
                    pass
                return
            writer.write(data)
            try:
                await writer.drain()
            except OSError:
                return

    delivery = asyncio.create_task(deliver())
    while True:
        try:
            data = await reader.read(1 << 16)
        except OSError:
            data = b""
        queue.put_nowait((max(loop.time(), ready) + delay, data))
        if not data:
            break
    await delivery


async def main():
    if len(sys.argv) != 4:
        sys.exit("usage: latency-proxy.py LISTEN_HOST:PORT TARGET_HOST:PORT DELAY_MS")
    listen_host, listen_port = split(sys.argv[1])
    target_host, target_port = split(sys.argv[2])
    delay = float(sys.argv[3]) / 1000

    async def serve(client_reader, client_writer):
        loop = asyncio.get_running_loop()
        # The handshake's round trip: nothing reaches the server before it.
        ready = loop.time() + 2 * delay
        try:
            server_reader, server_writer = await asyncio.open_connection(target_host, target_port)
        except OSError:
            client_writer.close()
            return
        await asyncio.gather(carry(client_reader, server_writer, delay, ready),
                             carry(server_reader, client_writer, delay, ready))
        for writer in (client_writer, server_writer):
            writer.close()

    server = await asyncio.start_server(serve, listen_host, listen_port)
    host, port = server.sockets[0].getsockname()[:2]
    print(f"listening on {host}:{port}", flush=True)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        pass
