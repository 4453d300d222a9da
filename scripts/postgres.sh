#!/usr/bin/env bash
# A throwaway PostgreSQL server for tests and benchmarks, from the Debian `postgresql` package's binaries.
#
#   bash scripts/postgres.sh start DIR [PORT]   initdb into DIR, start on 127.0.0.1:PORT (default: a free port),
#                                               print the connection URL on stdout
#   bash scripts/postgres.sh stop DIR           stop the server in DIR and delete DIR
#
# PostgreSQL refuses to run as root: as root, the server runs as the `postgres` user (or a `deputy-pg` user
# created for it). Missing binaries are installed with apt when running as root; otherwise the script says
# which package to install.
set -euo pipefail

die() { echo "scripts/postgres.sh: $*" >&2; exit 1; }

find_bin() {
  local d
  for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r) "$(dirname "$(command -v initdb 2>/dev/null || echo /x/x)")"; do
    if [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ]; then echo "$d"; return 0; fi
  done
  return 1
}

bin_dir() {
  local d
  if d=$(find_bin); then echo "$d"; return; fi
  if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null; then
    echo "scripts/postgres.sh: installing the Debian package postgresql (apt-get)…" >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q postgresql >&2 ||
      { apt-get update -q >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -q postgresql >&2; }
    d=$(find_bin) || die "apt-get installed postgresql but initdb/pg_ctl are still missing"
    echo "$d"
    return
  fi
  die "PostgreSQL's initdb and pg_ctl are missing: install the Debian package 'postgresql' (sudo apt-get install postgresql), or set DEPUTY_TEST_PG_URL to an existing server"
}

# Runs a command as the server's user (itself when not root).
as_pg() {
  if [ "$(id -u)" -ne 0 ]; then "$@"; return; fi
  runuser -u "$PG_USER" -- "$@"
}

pick_user() {
  if [ "$(id -u)" -ne 0 ]; then PG_USER=$(id -un); return; fi
  if id postgres >/dev/null 2>&1; then PG_USER=postgres; return; fi
  id deputy-pg >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin deputy-pg
  PG_USER=deputy-pg
}

free_port() {
  node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'
}

cmd=${1:-}
dir=${2:-}
[ -n "$cmd" ] && [ -n "$dir" ] || die "usage: scripts/postgres.sh start|stop DIR [PORT]"

case "$cmd" in
  start)
    bin=$(bin_dir)
    pick_user
    port=${3:-$(free_port)}
    mkdir -p "$dir"
    [ -z "$(ls -A "$dir")" ] || die "$dir is not empty"
    [ "$(id -u)" -ne 0 ] || chown "$PG_USER" "$dir"
    as_pg test -w "$dir" || die "user $PG_USER cannot write $dir (its parent directories must be traversable: chmod 755)"
    as_pg "$bin/initdb" -D "$dir/data" -U deputy --auth=trust -E UTF8 --no-sync >"$dir/initdb.log" 2>&1 ||
      die "initdb failed: $(tail -3 "$dir/initdb.log")"
    as_pg "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 30 \
      -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c max_connections=200 -c shared_buffers=128MB -c track_commit_timestamp=on" \
      start >/dev/null || die "the server did not start: $(tail -5 "$dir/server.log")"
    echo "postgres://deputy@127.0.0.1:$port/postgres"
    ;;
  stop)
    [ -d "$dir/data" ] || exit 0
    bin=$(bin_dir)
    pick_user
    as_pg "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null 2>&1 || true
    rm -rf "$dir"
    ;;
  *) die "unknown command $cmd (start or stop)" ;;
esac
