#!/usr/bin/env bash
# The fine-tuning study of "models from elsewhere": an imported model fine-tuned
# on a corpus it was not trained on, scored on that corpus's held-out part and
# on its own original test set after every checkpoint. The whole job, as a user
# of an Argos Translate package would do it:
#
#   a. our sample model exported as an Argos package and imported back
#      (translator --export argos, translator --import): the "imported model";
#   b. an office/IT corpus it never saw (examples/sample/domain.py: the sample's
#      grammar, new nouns, verbs and adjectives), train and held-out test;
#   c. trainer --init-from the imported model on that corpus mixed with a replay
#      of the sample's own training corpus (data.corpora with weights), a
#      constant learning rate, a checkpoint every K steps, S steps;
#   d. BLEU and chrF2 of the imported model (step 0) and of every checkpoint on
#      the domain's held-out test and on examples/sample/test, all decoded with
#      the same pinned search; a CSV and an SVG of the two curves;
#   e. the table, the domain's gain and the original test's loss, the CPU, the
#      date and the command.
#
#   bench/finetune_study.sh [options]
#
#   --model DIR            the model to export and import (default runs/sample,
#                          trained from configs/sample.json)
#   --work DIR             where everything goes (default runs/finetune_study; it
#                          must not exist, or --force to remove an earlier study)
#   --steps S              fine-tuning steps (default 400)
#   --every K              a checkpoint every K steps (default 25)
#   --lr LR                constant learning rate after warm-up (default 0.0002)
#   --warmup W             warm-up steps (default 20)
#   --batch-tokens N       train.batch_tokens (default 1500, as configs/sample.json)
#   --train-precision P    train.precision: auto, fp32 or bf16 (default auto)
#   --domain-weight W      weight of the domain corpus (default 1)
#   --replay-weight W      weight of the replayed examples/sample/train.* (default 1;
#                          0: no replay)
#   --train N, --test N    domain pairs (default 2000 and 300)
#   --seed N               domain.py's seed (default: its own)
#   --original-lines N     score only the first N lines of examples/sample/test
#                          (default 0: all 500)
#   --search argos|ours    the search every point is decoded with (default argos:
#                          as argos-translate calls CTranslate2, beam 4, length
#                          penalty 0.2 in the power form, no end token first, at
#                          most 256 tokens; ours: beam 4, GNMT length penalty 0.6,
#                          at most 1.5 x source + 10 tokens)
#   --beam N               beam of that search (default 4)
#   --precision P          translator precision for scoring (default fp32)
#   --threads N            trainer and translator threads (default 0: every core)
#   --max-original-loss B  the stated bound: the verdict says whether the last
#                          checkpoint lost at most B BLEU on the original test
#                          (default 1.0)
#   --svg PATH             the curves (default docs/finetune_study.svg)
#   --csv PATH             the table (default WORK/finetune_study.csv)
#   --bin DIR              where translator and trainer are (default build)
#   --force                remove WORK first if it holds an earlier study
#
# Every point is decoded with the same flags, whatever each model directory's
# decoding.json or lengths.json says: the search above, --max-piece-tokens at
# the position table (no sentence split in pieces) and no coverage check, so
# the curves measure the weights and nothing else. Smoke test (about 10 s of
# CPU): bench/finetune_study.sh --work /tmp/ft --steps 10 --every 5 --train 200
# --test 50 --original-lines 50 --svg /tmp/ft/curves.svg --threads 1
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
command_line="$0 $*"
model=$root/runs/sample work=$root/runs/finetune_study
steps=400 every=25 lr=0.0002 warmup=20 batch_tokens=1500 train_precision=auto
domain_weight=1 replay_weight=1 n_train=2000 n_test=300 seed=""
original_lines=0 search=argos beam=4 precision=fp32 threads=0 max_loss=1.0
svg=$root/docs/finetune_study.svg csv="" bin=$root/build force=0

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }
need() { [ $# -ge 2 ] || { echo "$0: $1 needs a value" >&2; exit 2; }; }
while [ $# -gt 0 ]; do
  case $1 in
    --model) need "$@"; model=$2; shift 2 ;;
    --work) need "$@"; work=$2; shift 2 ;;
    --steps) need "$@"; steps=$2; shift 2 ;;
    --every) need "$@"; every=$2; shift 2 ;;
    --lr) need "$@"; lr=$2; shift 2 ;;
    --warmup) need "$@"; warmup=$2; shift 2 ;;
    --batch-tokens) need "$@"; batch_tokens=$2; shift 2 ;;
    --train-precision) need "$@"; train_precision=$2; shift 2 ;;
    --domain-weight) need "$@"; domain_weight=$2; shift 2 ;;
    --replay-weight) need "$@"; replay_weight=$2; shift 2 ;;
    --train) need "$@"; n_train=$2; shift 2 ;;
    --test) need "$@"; n_test=$2; shift 2 ;;
    --seed) need "$@"; seed=$2; shift 2 ;;
    --original-lines) need "$@"; original_lines=$2; shift 2 ;;
    --search) need "$@"; search=$2; shift 2 ;;
    --beam) need "$@"; beam=$2; shift 2 ;;
    --precision) need "$@"; precision=$2; shift 2 ;;
    --threads) need "$@"; threads=$2; shift 2 ;;
    --max-original-loss) need "$@"; max_loss=$2; shift 2 ;;
    --svg) need "$@"; svg=$2; shift 2 ;;
    --csv) need "$@"; csv=$2; shift 2 ;;
    --bin) need "$@"; bin=$2; shift 2 ;;
    --force) force=1; shift ;;
    -h|--help) usage ;;
    *) echo "$0: unknown option $1 (--help lists them)" >&2; exit 2 ;;
  esac
done
for n in steps every warmup batch_tokens n_train n_test original_lines beam threads; do
  [[ ${!n} =~ ^[0-9]+$ ]] || { echo "$0: ${n//_/-} must be a whole number, not '${!n}'" >&2; exit 2; }
done
if [ "$steps" -lt 1 ] || [ "$every" -lt 1 ]; then echo "$0: --steps and --every must be at least 1" >&2; exit 2; fi
case $search in
  argos) search_flags=(--beam "$beam" --length-penalty 0.2 --length-penalty-form power --min-length 1
                       --max-len-a 0 --max-len-b 256) ;;
  ours) search_flags=(--beam "$beam" --length-penalty 0.6 --length-penalty-form gnmt --min-length 0
                      --max-len-a 1.5 --max-len-b 10) ;;
  *) echo "$0: --search is argos or ours, not '$search'" >&2; exit 2 ;;
esac
translator=$bin/translator trainer=$bin/trainer
for x in "$translator" "$trainer"; do [ -x "$x" ] || { echo "$0: $x is missing; build first (scripts/build.sh)" >&2; exit 2; }; done
[ -f "$model/config.json" ] || { echo "$0: $model is not a model directory (no config.json)" >&2; exit 2; }
if [ -e "$work" ]; then
  if [ "$force" = 1 ] && { [ -f "$work/tune.json" ] || [ -z "$(ls -A "$work")" ]; }; then
    rm -rf "${work:?}"
  else
    echo "$0: $work exists; --force removes it if it holds an earlier study (a tune.json)" >&2
    exit 2
  fi
fi
mkdir -p "$work"
work=$(cd "$work" && pwd)
model=$(cd "$model" && pwd)
csv=${csv:-$work/finetune_study.csv}
log() { printf '\n== %s\n' "$*"; }
started=$(date +%s)

log "a. export $model as an Argos package, import it back"
"$translator" --model "$model" --export argos --out "$work/sample.argosmodel"
"$translator" --import "$work/sample.argosmodel" --out "$work/imported"
imported=$work/imported

log "b. the office/IT corpus the model never saw"
tokens=()
[ -f "$imported/vocab/tokens.txt" ] && tokens=(--tokens "$imported/vocab/tokens.txt")
python3 "$root/examples/sample/domain.py" --out "$work/data" --train "$n_train" --test "$n_test" \
  ${seed:+--seed "$seed"} "${tokens[@]}"
if [ "$original_lines" -gt 0 ]; then
  head -n "$original_lines" "$root/examples/sample/test.en" > "$work/data/original_test.en"
  head -n "$original_lines" "$root/examples/sample/test.de" > "$work/data/original_test.de"
else
  cp "$root/examples/sample/test.en" "$work/data/original_test.en"
  cp "$root/examples/sample/test.de" "$work/data/original_test.de"
fi

log "c. fine-tune: $steps steps, lr $lr constant, a checkpoint every $every"
replay=""
if [ "$replay_weight" != 0 ]; then
  replay=",
      {\"src\": \"$root/examples/sample/train.en\", \"tgt\": \"$root/examples/sample/train.de\", \"weight\": $replay_weight}"
fi
# No model or vocab section: --init-from keeps the imported model's shape and
# vocabulary. No validation set: the domain's test stays held out, and every
# checkpoint is scored below.
cat > "$work/tune.json" <<EOF
{
  "data": {
    "corpora": [
      {"src": "$work/data/domain_train.en", "tgt": "$work/data/domain_train.de", "weight": $domain_weight}$replay
    ],
    "max_len": 64
  },
  "train": {
    "max_steps": $steps, "epochs": 1000000, "batch_tokens": $batch_tokens,
    "schedule": "constant", "lr": $lr, "warmup_steps": $warmup,
    "label_smoothing": 0.1, "clip": 1.0, "seed": 1, "threads": $threads, "precision": "$train_precision",
    "log_every_steps": $(( every < 50 ? every : 50 ))
  },
  "checkpoint": {"every_steps": $every, "keep_last": $(( steps / every + 2 )), "average_last": 0},
  "valid": {"bleu": false}
}
EOF
cat "$work/tune.json"
tune_started=$(date +%s)
"$trainer" --config "$work/tune.json" --init-from "$imported" --out "$work/tuned" 2>&1 | tee "$work/tune.log"
tune_seconds=$(( $(date +%s) - tune_started ))

log "d. score step 0 (the imported model) and every checkpoint"
max_len=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["model"]["max_len"])' "$imported/config.json")
pinned=("${search_flags[@]}" --precision "$precision" --threads "$threads"
        --max-piece-tokens $(( max_len - 2 )) --no-coverage-check)
echo "decoding every point with: ${pinned[*]}"
mkdir -p "$work/eval"
steps_at=(0) dirs=("$imported") ckpts=("$imported/checkpoints/last.pt")
for ckpt in "$work"/tuned/checkpoints/step-*.pt; do
  [ -e "$ckpt" ] || continue
  step=$(basename "$ckpt" .pt); step=$((10#${step#step-}))
  steps_at+=("$step") dirs+=("$work/tuned") ckpts+=("$ckpt")
done
eval_started=$(date +%s)
for i in "${!steps_at[@]}"; do
  step=${steps_at[$i]} dir=${dirs[$i]} ckpt=${ckpts[$i]}
  for set in domain original; do
    case $set in domain) src=$work/data/domain_test.en ref=$work/data/domain_test.de ;;
                 original) src=$work/data/original_test.en ref=$work/data/original_test.de ;; esac
    out=$work/eval/step-$step.$set
    "$translator" --model "$dir" --checkpoint "$ckpt" --input "$src" --score "$ref" "${pinned[@]}" \
      --output "$out.de" 2> "$out.log"
    grep '^{' "$out.log" | tail -n 1 > "$out.json"
  done
  printf 'step %5d  %s\n' "$step" "$(python3 -c 'import json,sys
print("  ".join("%s BLEU %.2f" % (s, json.load(open(sys.argv[1] + s + ".json"))["bleu"]) for s in ("domain", "original")))' \
    "$work/eval/step-$step.")"
done
eval_seconds=$(( $(date +%s) - eval_started ))

log "e. the study"
python3 - "$work" "$csv" "$svg" "$max_loss" "$root/bench" "$n_test" "$(wc -l < "$work/data/original_test.en")" <<'EOF'
import glob, json, os, re, sys
work, csv_path, svg_path, max_loss, bench, n_domain, n_original = sys.argv[1:]
sys.path.insert(0, bench)
import svg_lines

rows = []
for path in glob.glob(os.path.join(work, "eval", "step-*.domain.json")):
    step = int(re.search(r"step-(\d+)\.domain\.json$", path).group(1))
    d = json.load(open(path))
    o = json.load(open(path.replace(".domain.json", ".original.json")))
    rows.append((step, d["bleu"], o["bleu"], d["chrf2"], o["chrf2"]))
rows.sort()
os.makedirs(os.path.dirname(os.path.abspath(csv_path)), exist_ok=True)
with open(csv_path, "w") as f:
    f.write("step,domain_bleu,original_bleu,domain_chrf2,original_chrf2\n")
    for r in rows:
        f.write("%d,%.2f,%.2f,%.2f,%.2f\n" % r)

print("| step | domain BLEU | original BLEU | domain chrF2 | original chrF2 |")
print("|---:|---:|---:|---:|---:|")
for r in rows:
    print("| %d | %.2f | %.2f | %.2f | %.2f |" % r)
first, last = rows[0], rows[-1]
best = max(rows[1:] or rows, key=lambda r: r[1])
worst = min(rows[1:] or rows, key=lambda r: r[2])
print()
print("domain test (%s held-out pairs): %.2f -> %.2f BLEU, gain %+.2f (chrF2 %+.2f); best %.2f at step %d"
      % (n_domain, first[1], last[1], last[1] - first[1], last[3] - first[3], best[1], best[0]))
print("original test (%s pairs): %.2f -> %.2f BLEU, loss %.2f (chrF2 %+.2f); most lost at any checkpoint %.2f (step %d)"
      % (n_original, first[2], last[2], first[2] - last[2], last[4] - first[4], first[2] - worst[2], worst[0]))
loss, bound = first[2] - last[2], float(max_loss)
verdict = "met" if last[1] > first[1] and loss <= bound else "NOT met"
print("must-show (domain improves, original loses at most %.2f BLEU at step %d): %s" % (bound, last[0], verdict))

os.makedirs(os.path.dirname(os.path.abspath(svg_path)), exist_ok=True)
name = lambda n, pts: "%s %.1f -> %.1f" % (n, pts[0][1], pts[-1][1])
svg_lines.line_chart(
    svg_path, "The imported sample model fine-tuned on an office/IT corpus",
    [("domain test", [(r[0], r[1]) for r in rows], None),
     ("original test", [(r[0], r[2]) for r in rows], None)],
    "fine-tuning step", "BLEU", y_range=(0, 100), legend=name)
print("wrote %s and %s" % (csv_path, svg_path))
EOF

echo
echo "CPU: $(lscpu | sed -n 's/^Model name: *//p' | head -n 1) ($(nproc) cores)"
echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "code: $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)$([ -z "$(git -C "$root" status --porcelain 2>/dev/null)" ] || echo ' (with local changes)')"
echo "command: $command_line"
echo "fine-tuning took $tune_seconds s, scoring ${#steps_at[@]} points $eval_seconds s, all $(( $(date +%s) - started )) s"
