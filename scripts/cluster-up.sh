#!/bin/sh
# Starts a three-node Basalt cluster on 127.0.0.1:7001-7003 (data and logs
# under ./data/cluster, /metrics on 9001-9003) and pushes its topology, as
# the Kvrocks controller would, with redis-cli. `scripts/cluster-up.sh down`
# stops it.
set -eu

BIN=${BIN:-bin/basalt}
BASE=${BASE:-./data/cluster}
PORTS="7001 7002 7003"

id_of() { # a fixed 40-character node id per port
	printf '%040d' "$1"
}

if [ "${1:-}" = "down" ]; then
	for port in $PORTS; do
		pidfile="$BASE/$port/basalt.pid"
		if [ -f "$pidfile" ]; then
			kill "$(cat "$pidfile")" && echo "stopped node $port"
		fi
	done
	exit 0
fi

[ -x "$BIN" ] || make build
for port in $PORTS; do
	mkdir -p "$BASE/$port"
	"$BIN" --cluster-enabled yes --bind 127.0.0.1 --port "$port" --metrics-port "$((port + 2000))" --dir "$BASE/$port" \
		--pidfile "$BASE/$port/basalt.pid" --log-dir "$BASE/$port" >"$BASE/$port/stdout.log" 2>&1 &
done
for port in $PORTS; do
	until redis-cli -p "$port" ping >/dev/null 2>&1; do sleep 0.1; done
done

nodes="$(id_of 7001) 127.0.0.1 7001 master - 0-5460
$(id_of 7002) 127.0.0.1 7002 master - 5461-10922
$(id_of 7003) 127.0.0.1 7003 master - 10923-16383"
version=1
for port in $PORTS; do
	redis-cli -p "$port" CLUSTERX SETNODEID "$(id_of "$port")" >/dev/null
	redis-cli -p "$port" CLUSTERX SETNODES "$nodes" "$version" >/dev/null
done
redis-cli -p 7001 CLUSTER NODES
echo "cluster up: try  redis-cli -c -p 7001  (stop it with: $0 down)"
