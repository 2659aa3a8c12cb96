# SPDX-License-Identifier: BSD-3-Clause
"""The client of lsw's JSON-RPC socket (control/RPC.md): one request per line, answered in
order on a Unix socket or lsw's optional TCP listener."""
import itertools
import json
import socket

_ids = itertools.count(1)


class RpcError(Exception):
    def __init__(self, err):
        self.err = err
        msg = "%s (%s)" % (err.get("message"), err.get("code"))
        for e in (err.get("data") or {}).get("errors", []):
            msg += "\n  %s: %s" % (e["path"], e["message"])
        super().__init__(msg)


class Client:
    def __init__(self, path, timeout=10.0):
        if path.startswith("tcp:"):  # tcp:HOST:PORT, lsw's optional TCP listener
            host, _, port = path[4:].rpartition(":")
            self.sock = socket.create_connection((host or "127.0.0.1", int(port)), timeout)
        else:
            self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            self.sock.settimeout(timeout)
            self.sock.connect(path)
        self.buf = b""

    def send(self, method, params=None):
        """Send a request without waiting for its answer (lsw answers in order, so that
        several may be in flight); its id."""
        req = {"jsonrpc": "2.0", "id": next(_ids), "method": method}
        if params is not None:
            req["params"] = params
        self.sock.sendall(json.dumps(req).encode() + b"\n")
        return req["id"]

    def receive(self):
        """The next response, whole (result or error)."""
        while b"\n" not in self.buf:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError("lsw closed the connection")
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        return json.loads(line)

    def call(self, method, params=None):
        self.send(method, params)
        resp = self.receive()
        if "error" in resp:
            raise RpcError(resp["error"])
        return resp["result"]
