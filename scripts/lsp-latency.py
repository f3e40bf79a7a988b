#!/usr/bin/env python3
"""Measures `bikecheck lsp` on a garage: how long a re-check takes after an edit (didChange to
the publishDiagnostics it causes) and how long a completion takes, as the editor sees them.

    python3 scripts/lsp-latency.py BIKECHECK GARAGE [--runs 20]

It opens the garage's first bike, makes a small edit (appends a comment, then removes it) --runs
times, and asks for completion in its `templates:` list as often. Prints the median and the worst.
Python 3 standard library only.
"""
import argparse, json, os, statistics, subprocess, time, urllib.parse


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("bikecheck")
    ap.add_argument("garage")
    ap.add_argument("--runs", type=int, default=20)
    args = ap.parse_args()
    root = os.path.realpath(args.garage)
    server = subprocess.Popen([args.bikecheck, "lsp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)

    def send(message):
        body = json.dumps(message).encode()
        server.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        server.stdin.flush()

    def receive():
        header = b""
        while not header.endswith(b"\r\n\r\n"):
            header += server.stdout.read(1)
        length = int([l for l in header.split(b"\r\n") if l.lower().startswith(b"content-length")][0].split(b":")[1])
        return json.loads(server.stdout.read(length))

    def until(predicate):
        while True:
            message = receive()
            if predicate(message):
                return message

    uri = lambda path: "file://" + urllib.parse.quote(path)
    send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"rootUri": uri(root), "capabilities": {}}})
    until(lambda m: m.get("id") == 1)
    started = time.perf_counter()
    send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
    send({"jsonrpc": "2.0", "id": 2, "method": "textDocument/documentSymbol", "params": {"textDocument": {"uri": uri(root + "/x.yaml")}}})
    until(lambda m: m.get("id") == 2)
    first = time.perf_counter() - started

    bike = sorted(os.listdir(root + "/bikes"))[0]
    path = root + "/bikes/" + bike
    text = open(path, encoding="utf-8").read()
    lines = text.split("\n")
    send({"jsonrpc": "2.0", "method": "textDocument/didOpen",
          "params": {"textDocument": {"uri": uri(path), "languageId": "yaml", "version": 1, "text": text}}})
    until(lambda m: m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri(path))

    end = len(lines) - 1
    checks, completions = [], []
    version = 1
    for run in range(args.runs):
        version += 1
        edit = {"range": {"start": {"line": end, "character": 0}, "end": {"line": end, "character": 0}}, "text": "# edit\n"} if run % 2 == 0 else \
            {"range": {"start": {"line": end, "character": 0}, "end": {"line": end + 1, "character": 0}}, "text": ""}
        t = time.perf_counter()
        send({"jsonrpc": "2.0", "method": "textDocument/didChange",
              "params": {"textDocument": {"uri": uri(path), "version": version}, "contentChanges": [edit]}})
        until(lambda m: m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri(path))
        checks.append(time.perf_counter() - t)

    line = next(i for i, l in enumerate(lines) if l.startswith("templates:"))
    character = lines[line].index("[") + 1
    for run in range(args.runs):
        t = time.perf_counter()
        send({"jsonrpc": "2.0", "id": 100 + run, "method": "textDocument/completion",
              "params": {"textDocument": {"uri": uri(path)}, "position": {"line": line, "character": character}}})
        until(lambda m: m.get("id") == 100 + run)
        completions.append(time.perf_counter() - t)

    send({"jsonrpc": "2.0", "id": 9, "method": "shutdown"})
    until(lambda m: m.get("id") == 9)
    send({"jsonrpc": "2.0", "method": "exit"})
    server.wait()
    ms = lambda xs: "median %.1f ms, worst %.1f ms" % (statistics.median(xs) * 1000, max(xs) * 1000)
    print("first check of the garage: %.1f ms" % (first * 1000))
    print("re-check after an edit (%d runs): %s" % (len(checks), ms(checks)))
    print("completion (%d runs): %s" % (len(completions), ms(completions)))


if __name__ == "__main__":
    main()
