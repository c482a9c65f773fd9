#!/usr/bin/env python3
"""Drives Debian's headless Chromium over the DevTools protocol (on a pipe,
--remote-debugging-pipe: no port, no websocket library) to approve a device
code at lib-server's verification page, as a person would: open the page
from verification_uri_complete, type the user name and password, press
Approve, and print what the page then says (its #result's data-result and
text), one line each.

    approve_device.py URL USERNAME PASSWORD
"""
import json
import os
import subprocess
import sys
import tempfile
import time


class Browser:
    def __init__(self, profile):
        to_chrome_r, self.to_chrome = os.pipe()
        self.from_chrome, from_chrome_w = os.pipe()
        # Chromium reads commands from fd 3 and writes answers to fd 4.
        self.process = subprocess.Popen(
            ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
             "--remote-debugging-pipe", f"--user-data-dir={profile}", "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            pass_fds=(3, 4), preexec_fn=lambda: (os.dup2(to_chrome_r, 3), os.dup2(from_chrome_w, 4)))
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self.next_id = 0
        self.buffer = b""

    def send(self, method, params=None, session=None, timeout=20):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self.to_chrome, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            while b"\0" not in self.buffer:
                chunk = os.read(self.from_chrome, 65536)
                if not chunk:
                    raise RuntimeError("chromium closed the pipe")
                self.buffer += chunk
            raw, self.buffer = self.buffer.split(b"\0", 1)
            answer = json.loads(raw)
            if answer.get("id") == self.next_id:
                if "error" in answer:
                    raise RuntimeError(f"{method}: {answer['error']}")
                return answer.get("result", {})
        raise RuntimeError(f"{method}: no answer in {timeout} s")

    def close(self):
        try:
            self.send("Browser.close", timeout=5)
        except Exception:
            pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()


def main():
    url, username, password = sys.argv[1:4]
    with tempfile.TemporaryDirectory(prefix="lib-chromium-") as profile:
        browser = Browser(profile)
        try:
            target = browser.send("Target.createTarget", {"url": url})["targetId"]
            session = browser.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]

            def evaluate(expression):
                result = browser.send("Runtime.evaluate", {"expression": expression, "returnByValue": True}, session)
                return result.get("result", {}).get("value")

            def wait_for(expression, timeout=20):
                deadline = time.monotonic() + timeout
                while time.monotonic() < deadline:
                    value = evaluate(expression)
                    if value:
                        return value
                    time.sleep(0.05)
                raise RuntimeError(f"timed out waiting for {expression}")

            wait_for("document.readyState === 'complete' && document.querySelector('#approve') !== null")
            print("prefilled " + evaluate("document.querySelector('#user_code').value"))
            # The page's own policy forbids scripts; the DevTools protocol types
            # and clicks as a person would, through the form's own fields.
            evaluate(f"document.querySelector('#username').value = {json.dumps(username)}")
            evaluate(f"document.querySelector('#password').value = {json.dumps(password)}")
            evaluate("document.querySelector('#approve').click()")
            print("result " + wait_for("(document.querySelector('#result') || {dataset: {}}).dataset.result"))
            print("text " + evaluate("document.querySelector('#result').textContent"))
            print("style " + evaluate("getComputedStyle(document.body).fontFamily"))
        finally:
            browser.close()


if __name__ == "__main__":
    main()
