"""BLEU of a list of translations against a reference file, as the translator
scores it (translator --score REF --hypotheses FILE): one scorer for the
benchmarks, so their figures are the product's own."""
import json
import os
import subprocess


def bleu(translator, hypotheses, reference, work, name):
    """Writes `hypotheses` to WORK/NAME.hyp and returns the translator's BLEU of them against `reference`."""
    path = os.path.join(work, name + ".hyp")
    with open(path, "w") as f:
        f.write("\n".join(hypotheses) + "\n")
    r = subprocess.run([translator, "--score", reference, "--hypotheses", path], check=True, capture_output=True,
                       text=True)
    return json.loads(r.stderr.strip().splitlines()[-1])["bleu"]
