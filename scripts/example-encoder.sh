#!/usr/bin/env bash
# The alert-triage example on the better distilled model (`npm run example:encoder`): fetches the sentence encoder
# once (scripts/encoder-model.sh), trains the model once on the generated alerts, the people's decisions (the
# hand-written development sets, as --resolved: they also choose the threshold) and non-production copies of half
# their pages and tickets (counterfactual.mjs), aims its threshold at 99 % precision, measures it on holdout5.jsonl — alerts nothing was trained, tuned or
# developed on — and runs the example's plan with it. The model is kept in .deputy/ (delete it to retrain).
set -euo pipefail
cd "$(dirname "$0")/.."
data=examples/alert-triage/data
people=("$data/escalations.jsonl" "$data/development.jsonl" "$data/handwritten.jsonl" "$data/holdout3.jsonl"
  "$data/holdout2.jsonl" "$data/holdout4.jsonl")
encoder=$(bash scripts/encoder-model.sh)
model=.deputy/triage-encoder.model.json
if [ ! -f "$model" ]; then
  mkdir -p .deputy
  node "$data/counterfactual.mjs" .deputy/counterfactual.jsonl "${people[@]}"
  node bin/deputy.js distill "$data/train.jsonl" "$data/styled.jsonl" .deputy/counterfactual.jsonl \
    --resolved "${people[@]}" --holdout "$data/heldout.jsonl" --measure "$data/holdout5.jsonl" \
    --target-precision 0.99 \
    --node triage_items --encoder "gguf=$encoder" --out "$model"
fi
node bin/deputy.js run examples/alert-triage/plan.json --tools examples/alert-triage/tools.mjs \
  --delegate "distilled=$model" --traces .deputy/alert-traces.jsonl || [ $? -eq 4 ]
