"""A real headless Chromium driven through the DevTools protocol over a pipe.

``--remote-debugging-pipe`` makes Chromium read protocol commands from file
descriptor 3 and write replies to descriptor 4 (JSON messages ended by a NUL
byte), so no WebSocket library and no open port are needed.  Used by the
site's and JupyterLab's browser tests to read what a reader sees
(``document.body.innerText``) and to take screenshots.
"""
import base64
import json
import os
import shutil
import subprocess
import tempfile
import time
import urllib.parse

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--hide-scrollbars", "--font-render-hinting=none"]


LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1", "[::1]")


def find_chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if shutil.which(name):
            return shutil.which(name)
    return None


class Chromium:
    """One browser with one tab.  ``offline=True`` fails every http(s) request that
    leaves this machine (``blocked`` lists them), as for a reader with no network."""

    def __init__(self, width=1280, height=900, offline=True):
        executable = find_chromium()
        if executable is None:
            raise RuntimeError("Chromium is required (./dev.sh test installs Debian's chromium)")
        self.profile = tempfile.mkdtemp(prefix="chromium-profile-")
        to_child_r, self._to_child = os.pipe()
        self._from_child, from_child_w = os.pipe()

        def wire_pipes():  # in the child: the protocol's descriptors are 3 (in) and 4 (out)
            a, b = os.dup(to_child_r), os.dup(from_child_w)
            os.dup2(a, 3)
            os.dup2(b, 4)

        self.process = subprocess.Popen(
            [executable, *FLAGS, f"--user-data-dir={self.profile}", "--remote-debugging-pipe",
             f"--window-size={width},{height}", "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            close_fds=False, preexec_fn=wire_pipes)
        os.close(to_child_r)
        os.close(from_child_w)
        self._buffer, self._next_id, self.events, self.blocked = b"", 0, [], []
        target = self.call("Target.createTarget", url="about:blank")["targetId"]
        self.session = self.call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        for domain in ("Page", "Runtime", "Network"):
            self.call(f"{domain}.enable", session=True)
        self.offline = offline
        if offline:
            self.call("Fetch.enable", session=True, patterns=[{"urlPattern": "http*"}])
        self.resize(width, height)

    # -- protocol ---------------------------------------------------------------
    def _read_message(self, deadline):
        while b"\0" not in self._buffer:
            if time.monotonic() > deadline:
                raise TimeoutError("Chromium did not answer")
            chunk = os.read(self._from_child, 1 << 20)
            if not chunk:
                raise RuntimeError("Chromium exited")
            self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(message)

    def call(self, method, session=False, timeout=60, **params):
        self._next_id += 1
        message = {"id": self._next_id, "method": method, "params": params}
        if session:
            message["sessionId"] = self.session
        os.write(self._to_child, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            reply = self._read_message(deadline)
            if reply.get("id") == message["id"]:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            if reply.get("method") == "Fetch.requestPaused":
                self._offline_gate(reply["params"])
            elif "id" not in reply:
                self.events.append(reply)

    def _offline_gate(self, request):
        """Let requests to this machine through; fail every other one, as with no network."""
        host = urllib.parse.urlsplit(request["request"]["url"]).hostname
        self._next_id += 1
        if host in LOCAL_HOSTS:
            message = {"id": self._next_id, "method": "Fetch.continueRequest",
                       "params": {"requestId": request["requestId"]}}
        else:
            self.blocked.append(request["request"]["url"])
            message = {"id": self._next_id, "method": "Fetch.failRequest",
                       "params": {"requestId": request["requestId"], "errorReason": "InternetDisconnected"}}
        message["sessionId"] = self.session
        os.write(self._to_child, json.dumps(message).encode() + b"\0")

    # -- what tests use ------------------------------------------------------------
    def resize(self, width, height=900):
        self.width = width
        self.call("Emulation.setDeviceMetricsOverride", session=True, width=width, height=height,
                  deviceScaleFactor=1, mobile=width < 600)

    def evaluate(self, expression, timeout=60):
        result = self.call("Runtime.evaluate", session=True, timeout=timeout, expression=expression,
                           returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def wait_for(self, expression, timeout=30, interval=0.25):
        """Poll a JavaScript expression until it is truthy; return whether it became so."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.evaluate(expression):
                return True
            time.sleep(interval)
        return False

    def open(self, url, timeout=60):
        self.events.clear()
        self.call("Page.navigate", session=True, url=url)
        if not self.wait_for("document.readyState === 'complete'", timeout=timeout):
            raise TimeoutError(f"{url} did not finish loading")

    def text(self):
        """What the reader sees as text (hidden elements and script bodies excluded)."""
        return self.evaluate("document.body.innerText")

    def failed_requests(self):
        return [e["params"] for e in self.events if e.get("method") == "Network.loadingFailed"]

    def screenshot(self, png, full_page=True, max_height=8000):
        """Save a PNG of the page: all of it (up to ``max_height``) or the window as it is."""
        if full_page:
            height = int(min(self.evaluate("document.documentElement.scrollHeight"), max_height))
            self.resize(self.width, max(height, 1))
        data = self.call("Page.captureScreenshot", session=True, format="png")["data"]
        if full_page:
            self.resize(self.width)
        png.parent.mkdir(parents=True, exist_ok=True)
        png.write_bytes(base64.b64decode(data))
        return png

    def close(self):
        try:
            self.call("Browser.close", timeout=10)
        except (RuntimeError, TimeoutError, OSError):
            pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        for fd in (self._to_child, self._from_child):
            try:
                os.close(fd)
            except OSError:
                pass
        shutil.rmtree(self.profile, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
