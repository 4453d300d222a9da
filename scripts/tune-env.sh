#!/usr/bin/env bash
# Installs the Python that `deputy learn --tune` runs python/deputy_tune.py with (a LoRA adapter on a GGUF decoder,
# trained on CPU): torch, transformers, peft and gguf from the Python package index, pinned, in a virtual
# environment cached outside the repository:
#
#   ${DEPUTY_CACHE:-$HOME/.cache/deputy}/tune-venv/bin/python
#
# About 5.6 GB (the index's torch wheel brings CUDA libraries a CPU run never loads) and 2 minutes here.
# Idempotent: does nothing when the environment is there with these pins. Prints the Python's path on stdout
# (progress goes to stderr). Needs python3 with its venv module.
set -euo pipefail

pins=(torch==2.15.0 transformers==5.25.0 peft==0.21.2 gguf==0.19.0)
cache_root="${DEPUTY_CACHE:-$HOME/.cache/deputy}"
venv="$cache_root/tune-venv"
python="$venv/bin/python"
stamp="$venv/deputy-pins.txt"

if [[ -x "$python" && -f "$stamp" && "$(cat "$stamp")" == "${pins[*]}" ]]; then
  echo "$python"
  exit 0
fi
if ! command -v python3 >/dev/null 2>&1; then
  echo "tune-env.sh: python3 is required" >&2
  exit 1
fi
echo "tune-env.sh: installing ${pins[*]} into $venv" >&2
# The stamp is written last: an install killed half-way is started again from nothing.
rm -rf "$venv"
python3 -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check "${pins[@]}" >&2
echo "${pins[*]}" > "$stamp"
echo "$python"
