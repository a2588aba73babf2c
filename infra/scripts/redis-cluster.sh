#!/usr/bin/env bash
# A local Redis Cluster from the machine's own redis-server: 3 masters and 3 replicas (one per master) on
# REDIS_CLUSTER_PORT .. +5 (default 7100-7105), data under REDIS_CLUSTER_DIR (a temporary folder by default).
#   infra/scripts/redis-cluster.sh start   start (or find running) and print REDIS_CLUSTER_NODES=...
#   infra/scripts/redis-cluster.sh stop    shut every node down and remove its data
# See docs/scaling.md.
set -euo pipefail
BASE="${REDIS_CLUSTER_PORT:-7100}"
DIR="${REDIS_CLUSTER_DIR:-${TMPDIR:-/tmp}/conduit-redis-cluster-$BASE}"
PORTS=("$BASE" "$((BASE + 1))" "$((BASE + 2))" "$((BASE + 3))" "$((BASE + 4))" "$((BASE + 5))")
log() { echo "[redis-cluster] $*" >&2; }

nodes_list() {
  local IFS=,
  local seeds=()
  for port in "${PORTS[@]}"; do seeds+=("127.0.0.1:$port"); done
  echo "${seeds[*]}"
}

cluster_ok() {
  for port in "${PORTS[@]}"; do
    redis-cli -p "$port" cluster info 2>/dev/null | grep -q '^cluster_state:ok' || return 1
  done
  # Every master has its replica, as every node sees it (a failover needs one).
  for port in "${PORTS[@]}"; do
    [ "$(redis-cli -p "$port" cluster nodes | grep -c 'slave')" = "3" ] || return 1
  done
}

start() {
  for port in "${PORTS[@]}"; do
    if redis-cli -p "$port" ping >/dev/null 2>&1; then continue; fi
    mkdir -p "$DIR/$port"
    # Node timeout 2 s: a dead master is replaced within seconds (the default, 15 s, is for real networks).
    redis-server --daemonize yes --bind 127.0.0.1 --port "$port" --dir "$DIR/$port" \
      --cluster-enabled yes --cluster-config-file nodes.conf --cluster-node-timeout 2000 \
      --save "" --appendonly no --logfile "$DIR/$port/redis.log" --pidfile "$DIR/$port/redis.pid"
  done
  for port in "${PORTS[@]}"; do
    for _ in $(seq 1 50); do redis-cli -p "$port" ping >/dev/null 2>&1 && break; sleep 0.1; done
  done
  if ! cluster_ok; then
    if [ "$(redis-cli -p "$BASE" cluster info | grep -c '^cluster_known_nodes:1')" = "1" ]; then
      log "creating the cluster on ports ${PORTS[0]}-${PORTS[5]}"
      # shellcheck disable=SC2046
      redis-cli --cluster create $(nodes_list | tr , ' ') --cluster-replicas 1 --cluster-yes >/dev/null
    fi
    for _ in $(seq 1 100); do cluster_ok && break; sleep 0.2; done
    cluster_ok || { log "cluster did not reach state ok"; exit 1; }
  fi
  echo "REDIS_CLUSTER_NODES=$(nodes_list)"
}

stop() {
  for port in "${PORTS[@]}"; do redis-cli -p "$port" shutdown nosave >/dev/null 2>&1 || true; done
  rm -rf "$DIR"
}

case "${1:-start}" in
  start) start ;;
  stop) stop ;;
  *) echo "usage: $0 start|stop" >&2; exit 2 ;;
esac
