#!/usr/bin/python3
"""Resident memory of a served Argos Translate package: our server beside CTranslate2.

    CT2_PYTHONPATH=DIR bench/package_memory.py PACKAGE_DIR [--lines 100] [--port 18091]

PACKAGE_DIR is an Argos Translate package folder (metadata.json, model/, sentencepiece.model;
`translator --export argos` writes one). Ours: `translator --serve --models-dir` on the folder
holding it, in int8 (`--precision int8`), two threads, after translating the first --lines
lines of its test text (examples/sample/test.en) one request each. CTranslate2's: a Python
process that loads model/ with compute_type int8 (what argos-translate does for LibreTranslate),
inter_threads 1 x intra_threads 2, and translates the same lines as SentencePiece pieces. For
each: VmRSS after loading, after translating, and VmHWM (the peak), in MiB, and the same of a
bare process of each runtime (ours: `translator --help`'s LibTorch and libraries loaded, read at
exit; CTranslate2's: Python with ctranslate2 and sentencepiece imported), so that what the model
and its search cost can be told from what the runtime costs. Prints figures, asserts nothing.
"""
import argparse
import http.client
import json
import os
import subprocess
import sys
import time
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from ct2_compare import child_env, cpu_description  # noqa: E402


def status_mib(pid):
    out = {}
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                out[key] = int(value.split()[0]) / 1024.0
    return out


CT2_CHILD = r'''
import json, os, sys
import ctranslate2, sentencepiece as spm
def mem():
    out = {}
    for line in open("/proc/self/status"):
        k, _, v = line.partition(":")
        if k in ("VmRSS", "VmHWM"):
            out[k] = int(v.split()[0]) / 1024.0
    return out
pkg, lines = sys.argv[1], open(sys.argv[2], encoding="utf-8").read().splitlines()
bare = mem()
sp = spm.SentencePieceProcessor(model_file=os.path.join(pkg, "sentencepiece.model"))
t = ctranslate2.Translator(os.path.join(pkg, "model"), device="cpu", compute_type="int8", inter_threads=1,
                           intra_threads=2)
loaded = mem()
for line in lines:
    t.translate_batch([sp.encode(line, out_type=str)], beam_size=4, length_penalty=0.2)
done = mem()
print(json.dumps({"bare": bare, "loaded": loaded, "translated": done}))
'''


def ours(a, lines):
    folder = os.path.dirname(os.path.abspath(a.package))
    server = subprocess.Popen([a.translator, "--serve", "--models-dir", folder, "--precision", "int8", "--threads", "2",
                               "--port", str(a.port), "--no-coverage-check"], env=child_env(),
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.time() + 120
        while True:
            try:
                c = http.client.HTTPConnection("127.0.0.1", a.port, timeout=5)
                c.request("GET", "/languages")
                pairs = json.loads(c.getresponse().read())
                break
            except OSError:
                if time.time() > deadline or server.poll() is not None:
                    raise SystemExit("package_memory: our server did not start")
                time.sleep(0.2)
        source, target = next((p["code"], t) for p in pairs for t in p.get("targets", []) if t != p["code"])
        loaded = status_mib(server.pid)
        c = http.client.HTTPConnection("127.0.0.1", a.port, timeout=60)
        for line in lines:
            body = urllib.parse.urlencode({"q": line, "source": source, "target": target})
            c.request("POST", "/translate", body, {"Content-Type": "application/x-www-form-urlencoded"})
            r = c.getresponse()
            r.read()
            if r.status != 200:
                raise SystemExit("package_memory: /translate answered %d" % r.status)
        return {"loaded": loaded, "translated": status_mib(server.pid)}
    finally:
        server.terminate()
        server.wait()


def ours_bare(a):
    # The runtime alone: the executable with its libraries loaded, no model (read at exit by /usr/bin/time).
    r = subprocess.run(["/usr/bin/time", "-f", "%M", a.translator, "--help"], env=child_env(), capture_output=True,
                       text=True)
    return float(r.stderr.strip().splitlines()[-1]) / 1024.0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("package")
    ap.add_argument("--lines", type=int, default=100)
    ap.add_argument("--port", type=int, default=18091)
    ap.add_argument("--src", default=os.path.join(HERE, "..", "examples", "sample", "test.en"))
    ap.add_argument("--translator", default=os.path.join(HERE, "..", "build", "translator"))
    a = ap.parse_args()
    lines = open(a.src, encoding="utf-8").read().splitlines()[:a.lines]
    src = "/tmp/package_memory_src.txt"
    with open(src, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    print(cpu_description(), flush=True)
    model_bytes = os.path.getsize(os.path.join(a.package, "model", "model.bin"))
    print("package %s: model.bin %.1f MiB; %d requests of one sentence" % (a.package, model_bytes / 2**20, len(lines)))
    mine = ours(a, lines)
    print("ours (translator --serve, int8):  bare %.0f MiB peak | loaded %.0f | after %d requests %.0f, peak %.0f"
          % (ours_bare(a), mine["loaded"]["VmRSS"], len(lines), mine["translated"]["VmRSS"], mine["translated"]["VmHWM"]))
    if os.environ.get("CT2_PYTHONPATH"):
        out = subprocess.run([sys.executable, "-c", CT2_CHILD, a.package, src], env=child_env(), capture_output=True,
                             text=True, check=True).stdout
        theirs = json.loads(out)
        print("CTranslate2 (Python, int8):        bare %.0f MiB | loaded %.0f | after %d translations %.0f, peak %.0f"
              % (theirs["bare"]["VmRSS"], theirs["loaded"]["VmRSS"], len(lines), theirs["translated"]["VmRSS"],
                 theirs["translated"]["VmHWM"]))
    else:
        print("CTranslate2: CT2_PYTHONPATH not set, not measured")


if __name__ == "__main__":
    main()
