#!/usr/bin/env bash
# The learning loop on the alert-triage example, end to end and offline (`npm run example:learn`): the champion is
# the example's distilled model trained on the 400 generated alerts; `deputy learn` then retrains it on the team's
# first 90 decisions (escalations.jsonl), and again on all the development decisions (development.jsonl,
# holdout2–5), measuring each challenger against the current model on decisions neither trained on and promoting it
# only when it is better. Everything is written under .deputy/learn/ (removed first: the run is reproducible).
set -euo pipefail
cd "$(dirname "$0")/.."
[ -f dist/index.js ] || npm run build
data=examples/alert-triage/data
dir=.deputy/learn
model=$dir/triage.model.json
rm -rf "$dir"
mkdir -p "$dir"
echo "== the champion: deputy distill on the 400 generated alerts"
node bin/deputy.js distill "$data/train.jsonl" --node triage_items --out "$model" --target-precision 0.97 |
  grep -E "recommended|model written"
echo
echo "== deputy learn: the team's first 90 decisions"
node bin/deputy.js learn "$data/train.jsonl" --node triage_items --model "$model" --seed 1 \
  --decisions "$data/escalations.jsonl"
echo
echo "== deputy learn: all the development decisions"
node bin/deputy.js learn "$data/train.jsonl" --node triage_items --model "$model" --seed 1 \
  --decisions "$data/escalations.jsonl" --decisions "$data/development.jsonl" \
  --decisions "$data/holdout2.jsonl" --decisions "$data/holdout3.jsonl" \
  --decisions "$data/holdout4.jsonl" --decisions "$data/holdout5.jsonl"
echo
echo "files: $(ls "$dir" | tr '\n' ' ')"
