#!/usr/bin/env python3
"""The editor's server's memory around a cancelled check (issue 86).

    python3 benches/lsp_memory.py SYMCSP FILE N

starts `SYMCSP lsp`, opens FILE, then three times runs assertion N from
its lens, cancels it after 6 s and reads the server's resident size 5 s
later, printing it beside the size before and while checking.
"""
import json, subprocess, sys, time, os, threading, queue
binary, path, number = sys.argv[1], sys.argv[2], int(sys.argv[3])
p = subprocess.Popen([binary, "lsp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
q = queue.Queue()
def reader():
    f = p.stdout
    while True:
        header = b""
        while not header.endswith(b"\r\n\r\n"):
            c = f.read(1)
            if not c: return
            header += c
        n = int([l for l in header.decode().split("\r\n") if l.lower().startswith("content-length")][0].split(":")[1])
        q.put(json.loads(f.read(n)))
threading.Thread(target=reader, daemon=True).start()
ids = [0]
def send(obj):
    b = json.dumps(obj).encode()
    p.stdin.write(b"Content-Length: %d\r\n\r\n" % len(b) + b); p.stdin.flush()
def request(method, params):
    ids[0] += 1; i = ids[0]
    send({"jsonrpc": "2.0", "id": i, "method": method, "params": params})
    while True:
        m = q.get(timeout=60)
        if m.get("id") == i and "method" not in m: return m
def notify(method, params): send({"jsonrpc": "2.0", "method": method, "params": params})
def rss():
    for l in open(f"/proc/{p.pid}/status"):
        if l.startswith("VmRSS"): return int(l.split()[1]) // 1024
uri = "file://" + os.path.abspath(path)
request("initialize", {"processId": None, "rootUri": None, "capabilities": {}})
notify("initialized", {})
notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "cspm", "version": 1, "text": open(path).read()}})
time.sleep(3)
before = rss()
for rnd in range(3):
    request("workspace/executeCommand", {"command": "symcsp.check", "arguments": [uri, number]})
    time.sleep(6)
    peak = rss()
    lenses = request("textDocument/codeLens", {"textDocument": {"uri": uri}})["result"]
    cancel = [l["command"] for l in lenses if l.get("command", {}).get("command") == "symcsp.cancel"]
    if not cancel:
        print("no cancel lens (check finished?)", [l["command"]["title"] for l in lenses]); break
    request("workspace/executeCommand", {"command": "symcsp.cancel", "arguments": cancel[0]["arguments"]})
    time.sleep(5)
    print(f"round {rnd+1}: before {before} MB, while checking {peak} MB, 5 s after cancelling {rss()} MB")
request("shutdown", None); notify("exit", None)
