#!/usr/bin/env bash
# A throwaway PostgreSQL server for the tests (Debian's postgresql package): initialised in DIR,
# listening on a Unix socket in DIR and on 127.0.0.1 at a free port, nothing else. Writes the URLs
# to DIR/url (the socket) and DIR/url-tcp (loopback). As root it runs as the `postgres` user (the
# server refuses root).
#   postgres.sh start DIR     postgres.sh stop DIR
set -euo pipefail
cmd=${1:?start or stop}
dir=${2:?a folder}
bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
if [[ -z $bin || ! -x $bin/initdb ]]; then
  echo "no PostgreSQL server here (scripts/install-deps installs Debian's postgresql)" >&2
  exit 1
fi
as_owner() {
  if [[ $(id -u) -eq 0 ]]; then runuser -u postgres -- "$@"; else "$@"; fi
}
case $cmd in
  start)
    if [[ -f $dir/data/postmaster.pid ]]; then as_owner "$bin/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true; fi
    rm -rf "$dir"
    mkdir -p "$dir"
    [[ $(id -u) -eq 0 ]] && chown postgres "$dir"
    as_owner "$bin/initdb" -D "$dir/data" -U postgres -A trust -E UTF8 --locale=C >"$dir/initdb.log" 2>&1 ||
      { cat "$dir/initdb.log" >&2; exit 1; }
    port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    # max_connections: eight `headroom eval` processes hold two connections each, plus the tests'.
    if ! as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
        -o "-k $dir -p $port -h 127.0.0.1 -c max_connections=100" start >/dev/null; then
      cat "$dir/server.log" >&2
      exit 1
    fi
    echo "postgresql://postgres@/postgres?host=$dir&port=$port" >"$dir/url"
    echo "postgresql://postgres@127.0.0.1:$port/postgres" >"$dir/url-tcp"
    echo "PostgreSQL on $dir (socket) and 127.0.0.1:$port"
    ;;
  stop)
    if [[ -f $dir/data/postmaster.pid ]]; then as_owner "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null; fi
    rm -rf "$dir"
    ;;
  *)
    echo "usage: $0 start|stop DIR" >&2
    exit 2
    ;;
esac
