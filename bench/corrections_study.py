#!/usr/bin/env python3
"""From users' corrections to a better model, through the server, end to end.

The sample model is served (translator --serve --suggestions --api-key) from
a directory link, models/current. Then, all through HTTP as users and a
reviewer would do it:

  1. the domain's held-out sentences (examples/sample/domain.py: office and IT,
     words the model never saw) and the sample's own test set are translated
     and scored (BLEU, before);
  2. N corrections of the domain's training sentences are sent to POST /suggest
     and accepted (GET /suggestions, POST /suggestions/ID/accept);
  3. GET /suggestions/export?format=tsv, scripts/finetune_from_suggestions.sh
     (the corrections with a 1:1 replay of the sample's training data), the
     link pointed at the tuned model, SIGHUP; while the server reloads, a
     client keeps translating and counts failed requests;
  4. both test sets again (BLEU, after), and the stored corrections are still
     answered as stored.

    bench/corrections_study.py MODEL_DIR WORK [--corrections 500] [--test 200] [--steps 600]
        [--translator build/translator] [--trainer build/trainer]

Prints the BLEU table and the counts; exits 1 when a request fails, the
domain does not gain, or the sample's test loses more than 1 BLEU. Run from
the repository root; WORK must not exist.
"""
import argparse
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request

from translator_bleu import bleu

KEY = "study-key"


def call(port, path, body=None, method=None):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=data, method=method or ("POST" if data else "GET"))
    req.add_header("Authorization", f"Bearer {KEY}")
    if data:
        req.add_header("Content-Type", "application/json")
    with urllib.request.urlopen(req, timeout=600) as r:
        raw = r.read()
        return json.loads(raw) if r.headers.get("Content-Type", "").startswith("application/json") else raw.decode()


def translate(port, lines):
    out = []
    for i in range(0, len(lines), 100):
        out += call(port, "/translate", {"q": lines[i:i + 100], "source": "en", "target": "de"})["translatedText"]
    return out


def lines_of(path, n=None):
    with open(path) as f:
        out = [l.rstrip("\n") for l in f]
    return out[:n] if n else out


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("model")
    ap.add_argument("work")
    ap.add_argument("--corrections", type=int, default=500)
    ap.add_argument("--test", type=int, default=200)
    ap.add_argument("--steps", type=int, default=600)
    ap.add_argument("--translator", default="build/translator")
    ap.add_argument("--trainer", default="build/trainer")
    a = ap.parse_args()
    work = os.path.abspath(a.work)
    os.makedirs(work)
    data = os.path.join(work, "data")
    subprocess.run([sys.executable, "examples/sample/domain.py", "--out", data, "--train", str(a.corrections),
                    "--test", str(a.test)], check=True)
    models = os.path.join(work, "models")
    os.makedirs(models)
    shutil.copytree(a.model, os.path.join(models, "base"), ignore=shutil.ignore_patterns("data_cache"))
    os.symlink("base", os.path.join(models, "current"))
    port = free_port()
    log = open(os.path.join(work, "serve.log"), "w")
    server = subprocess.Popen([a.translator, "--serve", "--model", os.path.join(models, "current"), "--port", str(port),
                               "--suggestions", os.path.join(work, "store.db"), "--api-key", KEY],
                              stdout=log, stderr=subprocess.STDOUT)
    try:
        for _ in range(600):
            try:
                if call(port, "/ready")["status"] == "ready":
                    break
            except Exception:
                time.sleep(0.2)
        domain_test = lines_of(os.path.join(data, "domain_test.en"))
        sample_test = lines_of("examples/sample/test.en", a.test)
        with open(os.path.join(work, "sample_ref.de"), "w") as f:
            f.write("\n".join(lines_of("examples/sample/test.de", a.test)) + "\n")
        refs = {"domain": os.path.join(data, "domain_test.de"), "sample": os.path.join(work, "sample_ref.de")}
        before = {"domain": bleu(a.translator, translate(port, domain_test), refs["domain"], work, "domain_before"),
                  "sample": bleu(a.translator, translate(port, sample_test), refs["sample"], work, "sample_before")}
        sources = lines_of(os.path.join(data, "domain_train.en"))
        targets = lines_of(os.path.join(data, "domain_train.de"))
        for q, s in zip(sources, targets):
            call(port, "/suggest", {"q": q, "s": s, "source": "en", "target": "de"})
        pending = call(port, f"/suggestions?status=pending&limit={len(sources)}")["suggestions"]
        for p in pending:
            call(port, f"/suggestions/{p['id']}/accept", method="POST", body={})
        with open(os.path.join(work, "accepted.tsv"), "w") as f:
            f.write(call(port, "/suggestions/export?format=tsv"))
        started = time.time()
        subprocess.run(["scripts/finetune_from_suggestions.sh", "--model", os.path.join(models, "current"),
                        "--suggestions", os.path.join(work, "accepted.tsv"), "--replay-src", "examples/sample/train.en",
                        "--replay-tgt", "examples/sample/train.de", "--out", os.path.join(models, "tuned"),
                        "--steps", str(a.steps), "--trainer", a.trainer], check=True,
                       stdout=open(os.path.join(work, "tune.log"), "w"), stderr=subprocess.STDOUT)
        tune_seconds = time.time() - started
        # A client keeps translating while the server reloads.
        stop, counts = threading.Event(), {"ok": 0, "failed": 0}
        def client():
            while not stop.is_set():
                try:
                    translate(port, sample_test[:5])
                    counts["ok"] += 1
                except Exception:
                    counts["failed"] += 1
        t = threading.Thread(target=client)
        t.start()
        os.remove(os.path.join(models, "current"))
        os.symlink("tuned", os.path.join(models, "current"))
        server.send_signal(signal.SIGHUP)
        for _ in range(1200):
            if "reloaded; serving" in open(os.path.join(work, "serve.log")).read():
                break
            time.sleep(0.1)
        time.sleep(1)
        stop.set()
        t.join()
        after = {"domain": bleu(a.translator, translate(port, domain_test), refs["domain"], work, "domain_after"),
                 "sample": bleu(a.translator, translate(port, sample_test), refs["sample"], work, "sample_after")}
        answered = sum(x == y for x, y in zip(translate(port, sources[:50]), targets[:50]))
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=120)
    print(f"corrections {len(sources)} accepted {len(pending)}; fine-tuned {a.steps} steps in {tune_seconds:.0f} s")
    print(f"{'test set':<22}{'before':>8}{'after':>8}{'change':>8}")
    for name, label in (("domain", "domain (held out)"), ("sample", "sample test")):
        print(f"{label:<22}{before[name]:>8.2f}{after[name]:>8.2f}{after[name] - before[name]:>+8.2f}")
    print(f"requests during the reload: {counts['ok']} answered, {counts['failed']} failed")
    print(f"stored corrections answered as stored: {answered}/50")
    ok = counts["failed"] == 0 and after["domain"] > before["domain"] and after["sample"] >= before["sample"] - 1
    sys.exit(0 if ok and answered == 50 else 1)


if __name__ == "__main__":
    main()
