#!/usr/bin/env python3
"""catserver.py PORTFILE ROOT: a catalog server for tests/cli/catalog-update.sh.

Listens on 127.0.0.1 only, on a port the kernel picks (bound to port 0, so
no race with another test), written to PORTFILE (through a rename). Serves
ROOT's files with an ETag (the content's SHA-1) and Last-Modified, answers
If-None-Match with 304, and POST /api/v0/bundles/ with ROOT/bundles.json
(vast's search). It misbehaves on request: ROOT/.modes holds lines
"PATH MODE" (read at every request, so a test changes them as it goes):
  404 | 500       that status
  cut            a Content-Length 1000 bytes longer than the body, half sent
  html           200 with an HTML page
  slow           the answer after 5 s
  hold           the answer once ROOT/.release exists (at most 60 s)
  redirect       302 to /moved/PATH, which serves PATH
Every request is logged to ROOT/.log: "METHOD PATH inm=... auth=yes|no".
"""
import hashlib
import http.server
import os
import sys
import time


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def mode(self, path):
        try:
            with open(os.path.join(ROOT, ".modes")) as f:
                for line in f:
                    p = line.split()
                    if len(p) == 2 and p[0] == path:
                        return p[1]
        except OSError:
            pass
        return ""

    def send(self, code, body, ctype="text/csv", extra=()):
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for k, v in extra:
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def answer(self, path, file):
        with open(os.path.join(ROOT, ".log"), "a") as log:
            log.write("%s %s inm=%s auth=%s\n" % (self.command, self.path,
                      self.headers.get("If-None-Match", "-"),
                      "yes" if self.headers.get("Authorization") else "no"))
        mode = self.mode(path)
        if mode == "hold":
            end = time.time() + 60
            while not os.path.exists(os.path.join(ROOT, ".release")) and time.time() < end:
                time.sleep(0.02)
        if mode == "slow":
            time.sleep(5)
        if mode in ("404", "500"):
            return self.send(int(mode), b"error\n", "text/plain")
        if mode == "html":
            return self.send(200, b"<!DOCTYPE html><html><body>Rate limited</body></html>\n", "text/html")
        if mode == "redirect":
            self.send_response(302)
            self.send_header("Location", "/moved" + path)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        try:
            with open(os.path.join(ROOT, file.lstrip("/")), "rb") as f:
                body = f.read()
        except OSError:
            return self.send(404, b"not found\n", "text/plain")
        etag = '"%s"' % hashlib.sha1(body).hexdigest()
        if self.headers.get("If-None-Match") == etag:
            self.send_response(304)
            self.send_header("ETag", etag)
            self.end_headers()
            return
        if mode == "cut":
            self.send_response(200)
            self.send_header("Content-Type", "text/csv")
            self.send_header("Content-Length", str(len(body) + 1000))
            self.end_headers()
            self.wfile.write(body[: len(body) // 2])
            self.wfile.flush()
            self.close_connection = True
            return
        self.send(200, body, "application/json" if file.endswith(".json") else "text/csv",
                  [("ETag", etag), ("Last-Modified", self.date_time_string(os.path.getmtime(
                      os.path.join(ROOT, file.lstrip("/")))))])

    def do_GET(self):
        path = self.path.split("?")[0]
        file = path[len("/moved"):] if path.startswith("/moved/") else path
        if ".." in path.split("/"):
            return self.send(403, b"no\n", "text/plain")
        self.answer(path, file)

    def do_POST(self):
        n = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(n)
        with open(os.path.join(ROOT, ".posted"), "wb") as f:
            f.write(body)
        self.answer(self.path, "bundles.json")


if __name__ == "__main__":
    ROOT = os.path.abspath(sys.argv[2])
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    srv.daemon_threads = True
    tmp = sys.argv[1] + ".tmp"
    with open(tmp, "w") as f:
        f.write("%d\n" % srv.server_address[1])
    os.rename(tmp, sys.argv[1])
    srv.serve_forever()
