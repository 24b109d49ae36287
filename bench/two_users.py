#!/usr/bin/python3
"""Two users translating at once, one sentence a request: our server beside CTranslate2.

    CT2_PYTHONPATH=DIR bench/two_users.py MODEL_DIR SRC [--lines 200] [--beam 4]
        [--precision fp32] [--ct2-type float32] [--port 18089] [--repeat 3]

What a server with two concurrent users does: each user sends its lines one at a time and
waits for each answer. Ours: `translator --serve` on 2 threads (no page, no coverage check,
as CTranslate2 has none), two HTTP clients on keep-alive connections posting LibreTranslate's
/translate with one sentence each, so our figure includes HTTP and JSON. CTranslate2's:
its Python Translator with inter_threads 2 x intra_threads 1 (one sentence on each core),
two Python threads calling translate_batch on one sentence each, SentencePiece included, no
HTTP: what a server built on it costs at least. Both: the same lines, beam, output limit
(floor(1.5 x source) + 10 tokens) and length penalties of the same slope at 20 tokens (ours
GNMT 0.6, CTranslate2's 0.5, as bench/ct2_compare.py). Prints each side's median, 90th
percentile and mean latency and requests/s, the best of --repeat runs of each, in turn,
and ours/theirs ratios. Without CT2_PYTHONPATH only ours is measured.

Time with OpenBLAS's settings unset, as users run: this script unsets them for its children.
"""
import argparse
import http.client
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from ct2_compare import child_env, worker, cpu_description  # noqa: E402
from ct2_worker import two_users_at_once  # noqa: E402


def wait_for_server(port, proc, seconds=120):
    deadline = time.time() + seconds
    while time.time() < deadline:
        if proc.poll() is not None:
            raise SystemExit("two_users: the server exited with %d" % proc.returncode)
        try:
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            c.request("GET", "/languages")
            r = c.getresponse()
            r.read()
            if r.status == 200:
                return
        except OSError:
            time.sleep(0.2)
    raise SystemExit("two_users: the server did not answer within %d s" % seconds)


def languages(port):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    c.request("GET", "/languages")
    return json.loads(c.getresponse().read())


def ours_once(port, lines, source, target):
    connections = [http.client.HTTPConnection("127.0.0.1", port, timeout=120) for _ in (0, 1)]
    failures = []

    def request(k, line):
        c = connections[k]
        c.request("POST", "/translate", json.dumps({"q": line, "source": source, "target": target}),
                  {"Content-Type": "application/json"})
        r = c.getresponse()
        payload = r.read()
        if r.status != 200:
            failures.append(payload[:200])

    seconds, latencies = two_users_at_once(request, lines)
    if failures:
        raise SystemExit("two_users: %d requests failed, e.g. %s" % (len(failures), failures[0]))
    return seconds, latencies


def summary(seconds, latencies):
    ordered = sorted(latencies)
    return dict(median=statistics.median(ordered), p90=ordered[int(0.9 * (len(ordered) - 1))],
                mean=statistics.mean(ordered), rps=len(ordered) / seconds)


def show(name, s):
    print("| %-24s | %8.2f | %8.2f | %8.2f | %8.1f |" % (name, 1e3 * s["median"], 1e3 * s["p90"], 1e3 * s["mean"],
                                                        s["rps"]), flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("model")
    ap.add_argument("src")
    ap.add_argument("--lines", type=int, default=200)
    ap.add_argument("--beam", type=int, default=4)
    ap.add_argument("--precision", default="fp32", help="ours: fp32, bf16 or int8")
    ap.add_argument("--ct2-type", default="float32", help="CTranslate2's compute type")
    ap.add_argument("--port", type=int, default=18089)
    ap.add_argument("--threads", type=int, default=2, help="our server's --threads")
    ap.add_argument("--server-flags", default="", help="more flags for our server (e.g. --batch-wait-ms 0)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--build", default="build")
    ap.add_argument("--work", default=os.path.join(tempfile.gettempdir(), "two_users"))
    a = ap.parse_args()
    a.model, a.build = os.path.abspath(a.model), os.path.abspath(a.build)
    os.makedirs(a.work, exist_ok=True)
    lines = [l for l in open(a.src, encoding="utf-8").read().splitlines() if l.strip()][:a.lines]
    src = os.path.join(a.work, "src.txt")
    with open(src, "w", encoding="utf-8") as f:
        f.write("".join(l + "\n" for l in lines))
    have_ct2 = bool(os.environ.get("CT2_PYTHONPATH"))
    ct2_model = os.path.join(a.work, "ct2_model")
    if have_ct2:
        worker(["convert", a.model, ct2_model, os.path.join(a.build, "translator")])
    print("%s; %d lines, beam %d, ours %s, CTranslate2 %s; OpenBLAS settings unset" % (
        cpu_description(), len(lines), a.beam, a.precision, a.ct2_type if have_ct2 else "not measured"), flush=True)
    server = subprocess.Popen([os.path.join(a.build, "translator"), "--serve", "--model", a.model, "--port",
                               str(a.port), "--threads", str(a.threads), "--precision", a.precision, "--beam", str(a.beam),
                               "--length-penalty", "0.6", "--no-coverage-check", "--no-ui"] + a.server_flags.split(),
                              env=child_env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for_server(a.port, server)
        langs = languages(a.port)
        pair = next(l for l in langs if l["targets"])  # the model's source language and its first target
        source, target = pair["code"], pair["targets"][0]
        ours_once(a.port, lines[:8], source, target)  # warm-up
        best_ours, best_ct2 = None, None
        for _ in range(a.repeat):
            s = summary(*ours_once(a.port, lines, source, target))
            best_ours = s if best_ours is None or s["rps"] > best_ours["rps"] else best_ours
            if have_ct2:
                out = worker(["two_users", "--model", ct2_model, "--src", src, "--compute-type", a.ct2_type,
                              "--beam", str(a.beam), "--length-penalty", "0.5"])
                r = json.loads(out.strip().splitlines()[-1])
                c = summary(r["seconds"], r["latencies"])
                best_ct2 = c if best_ct2 is None or c["rps"] > best_ct2["rps"] else best_ct2
    finally:
        server.terminate()
        server.wait(timeout=30)
    print("| %-24s | %8s | %8s | %8s | %8s |" % ("two users, ms / req/s", "median", "p90", "mean", "req/s"))
    print("|%s|%s|%s|%s|%s|" % ("-" * 26, "-" * 10, "-" * 10, "-" * 10, "-" * 10))
    show("ours (HTTP server)", best_ours)
    if best_ct2:
        show("CTranslate2 (no HTTP)", best_ct2)
        print("ours / CTranslate2: median latency %.2fx faster, p90 %.2fx, requests/s %.2fx" % (
            best_ct2["median"] / best_ours["median"], best_ct2["p90"] / best_ours["p90"],
            best_ours["rps"] / best_ct2["rps"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
