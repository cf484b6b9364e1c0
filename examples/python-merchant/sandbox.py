"""One paysandbox process for the whole test run, and the control API calls the tests need.

The sandbox runs as a process, as in CI: `sandbox start --port 0 --db :memory: --ready-file F`
picks a free port and writes its URL to F once it answers. Every test class then creates its own
merchant (POST /_sandbox/merchants), so classes running in parallel never see each other's
payments, references or webhooks. SANDBOX_CLI names the command (default "npx sandbox").
"""

import atexit
import json
import os
import shlex
import shutil
import subprocess
import tempfile
import threading
import time
import urllib.error
import urllib.request


def request(method, url, body=None, headers=None):
    """Sends JSON (or nothing) and returns (status, headers, decoded JSON answer)."""
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method=method, headers={"Accept": "application/json", **(headers or {})})
    if data is not None:
        req.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(req, timeout=10) as res:
            return res.status, res.headers, json.loads(res.read() or b"null")
    except urllib.error.HTTPError as err:
        # A 4xx or 5xx still carries the gateway's JSON error: return it rather than raise.
        return err.code, err.headers, json.loads(err.read() or b"null")


def wait_for(probe, what, timeout=10.0):
    """Polls probe() until it returns something truthy; raises after timeout seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = probe()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}")
        time.sleep(0.05)


class Sandbox:
    """A `sandbox start` child process on a free port with an in-memory database."""

    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="python-merchant-")
        ready_file = os.path.join(self.dir, "url")
        self.log = open(os.path.join(self.dir, "sandbox.log"), "w+")
        command = shlex.split(os.environ.get("SANDBOX_CLI", "npx sandbox")) + [
            "start", "--port", "0", "--db", ":memory:", "--quiet", "--retry", "none", "--ready-file", ready_file,
        ]
        self.process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=self.log, stderr=subprocess.STDOUT)

        def ready():
            if self.process.poll() is not None:
                self.log.seek(0)
                raise RuntimeError(f"sandbox start exited with {self.process.returncode}: {self.log.read()}")
            if os.path.exists(ready_file):
                with open(ready_file) as f:
                    return f.read().strip()
            return None

        self.url = wait_for(ready, "the sandbox's --ready-file", timeout=30)

    def control(self, method, path, body=None):
        """Calls the control API (/_sandbox/...) and returns (status, answer)."""
        status, _, answer = request(method, f"{self.url}/_sandbox{path}", body)
        return status, answer

    def create_merchant(self, name):
        """A fresh merchant with one terminal: id, terNO, public_key, private_key, api_key, webhook_secret."""
        status, merchant = self.control("POST", "/merchants", {"name": name})
        if status != 201:
            raise RuntimeError(f"POST /_sandbox/merchants answered {status}: {merchant}")
        return merchant

    def delete_merchant(self, merchant_id):
        """Removes the merchant and everything it owns."""
        # The control API takes JSON bodies only, so even a DELETE sends {}.
        status, answer = self.control("DELETE", f"/merchants/{merchant_id}", {})
        if status not in (200, 204):
            raise RuntimeError(f"DELETE /_sandbox/merchants/{merchant_id} answered {status}: {answer}")

    def authenticate(self, payment_id, outcome):
        """Completes the 3-D Secure challenge of an S2S transID or a /v1/ payment id without a browser."""
        status, answer = self.control("POST", f"/transactions/{payment_id}/authenticate", {"outcome": outcome})
        if status != 200:
            raise RuntimeError(f"authenticate {payment_id} answered {status}: {answer}")
        return answer

    def stop(self):
        """SIGTERM, as Ctrl-C would: in-flight webhooks finish, then the process exits."""
        if self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=15)
        self.log.close()
        shutil.rmtree(self.dir, ignore_errors=True)


_shared = None
_shared_lock = threading.Lock()


def shared_sandbox():
    """The run's one sandbox, started by the first class that asks and stopped when Python exits."""
    global _shared
    with _shared_lock:
        if _shared is None:
            _shared = Sandbox()
            atexit.register(_shared.stop)
        return _shared
