#!/usr/bin/env python3
"""A loopback stand-in for Strava with nothing new, for `scripts/bench --commands sync-noop`.

    scripts/strava-noop-server.py GARAGE CONFIG_HOME

Writes a token that does not expire to CONFIG_HOME/bikecheck/strava-token.json, serves on
127.0.0.1 (a free port, printed as the first line of standard output) the athlete with the
garage's bikes (their `strava:` gear ids) and an empty activity listing, and runs until it is
killed. Standard library only; it answers nothing else (404).
"""
import http.server
import json
import os
import re
import sys


def gear_ids(garage):
    ids = []
    bikes = os.path.join(garage, "bikes")
    for name in sorted(os.listdir(bikes)):
        with open(os.path.join(bikes, name), encoding="utf-8") as f:
            m = re.search(r"^strava:\s*(b\d+)", f.read(), re.M)
        if m:
            ids.append((m.group(1), name.rsplit(".", 1)[0]))
    return ids


def main():
    garage, config_home = sys.argv[1], sys.argv[2]
    folder = os.path.join(config_home, "bikecheck")
    os.makedirs(folder, mode=0o700, exist_ok=True)
    token = {"access_token": "bench", "refresh_token": "bench", "expires_at": 4102444800, "scope": "read,activity:read_all"}
    path = os.path.join(folder, "strava-token.json")
    with open(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w") as f:
        json.dump(token, f)
    athlete = json.dumps({
        "id": 1, "firstname": "Bench", "lastname": "Rider",
        "bikes": [{"id": gid, "name": name, "primary": False, "retired": False, "distance": 0} for gid, name in gear_ids(garage)],
        "shoes": [],
    }).encode()

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            route = self.path.split("?", 1)[0]
            body = athlete if route == "/api/v3/athlete" else b"[]" if route == "/api/v3/athlete/activities" else None
            self.send_response(200 if body is not None else 404)
            body = body if body is not None else b'{"message":"Record Not Found"}'
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
    print(server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
