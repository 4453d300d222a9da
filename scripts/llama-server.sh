#!/usr/bin/env bash
# Builds `llama-server` from the llama.cpp source that node-llama-cpp ships
# (node_modules/node-llama-cpp/llama/gitRelease.bundle) and caches the binary
# outside the repository, keyed by the node-llama-cpp version:
#
#   ${DEPUTY_CACHE:-$HOME/.cache/deputy}/llama-server/<version>/llama-server
#
# Idempotent: does nothing when the binary is already cached. Prints the
# binary path on stdout (build logs go to stderr). Needs git, cmake and a C++
# compiler; takes ~10 minutes on 2 cores.
#
# GGML_NATIVE=OFF builds the portable x86-64 AVX2/FMA/F16C set instead of
# -march=native: a native build on a CPU that reports AMX (as this machine's
# does) dies with SIGILL on q8_0 models inside sandboxes that do not grant AMX,
# and a cached binary may run on another CPU than the one that built it.
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
pkg_dir="$repo_root/node_modules/node-llama-cpp"
bundle="$pkg_dir/llama/gitRelease.bundle"

if [[ ! -f "$pkg_dir/package.json" ]]; then
  echo "llama-server.sh: node-llama-cpp is not installed (run npm install first)" >&2
  exit 1
fi
version="$(node -p "require('$pkg_dir/package.json').version")"
cache_root="${DEPUTY_CACHE:-$HOME/.cache/deputy}"
dest_dir="$cache_root/llama-server/$version"
dest="$dest_dir/llama-server"

if [[ -x "$dest" ]]; then
  echo "$dest"
  exit 0
fi

for tool in git cmake c++; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "llama-server.sh: '$tool' is required to build llama-server" >&2
    exit 1
  fi
done
if [[ ! -f "$bundle" ]]; then
  echo "llama-server.sh: $bundle is missing" >&2
  exit 1
fi

jobs="${LLAMA_BUILD_JOBS:-$(nproc 2>/dev/null || echo 2)}"
work="$(mktemp -d "${TMPDIR:-/tmp}/deputy-llama-server.XXXXXX")"
trap 'rm -rf "$work"' EXIT

{
  echo "llama-server.sh: building llama-server (node-llama-cpp $version) in $work"
  git clone --quiet "$bundle" "$work/llama.cpp"
  cd "$work/llama.cpp"
  cmake -B build \
    -DLLAMA_CURL=OFF \
    -DLLAMA_BUILD_TESTS=OFF \
    -DLLAMA_BUILD_EXAMPLES=OFF \
    -DLLAMA_BUILD_SERVER=ON \
    -DBUILD_SHARED_LIBS=OFF \
    -DGGML_NATIVE=OFF \
    -DCMAKE_BUILD_TYPE=Release
  cmake --build build --target llama-server -j "$jobs"
} >&2

built="$work/llama.cpp/build/bin/llama-server"
if [[ ! -x "$built" ]]; then
  echo "llama-server.sh: build finished but $built is missing" >&2
  exit 1
fi

# Install atomically so a concurrent or interrupted run never leaves a
# half-written binary at the cached path.
mkdir -p "$dest_dir"
cp "$built" "$dest_dir/llama-server.tmp.$$"
chmod +x "$dest_dir/llama-server.tmp.$$"
mv -f "$dest_dir/llama-server.tmp.$$" "$dest"
echo "$dest"
