#!/usr/bin/env bash
# Makes sure the local Postgres and Redis answer (they run on this kind of machine; start them if stopped),
# then OpenSearch. Databases are created by the apps and the test harness themselves.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
log() { echo "[services] $*" >&2; }

if [ -z "${DATABASE_URL:-}" ] && ! pg_isready -h 127.0.0.1 -p 5432 -q 2>/dev/null; then
  log "starting PostgreSQL"
  pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -1)" main start || true
fi
if [ -z "${REDIS_URL:-}" ] && ! redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1; then
  log "starting Redis"
  redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no --dir /var/lib/redis --logfile /var/log/redis/ci.log || true
fi
# The embedding model of search by meaning, from Maven Central like the engine (checksum pinned, installed once).
"$ROOT/infra/scripts/embedding-model.sh"
if [ -z "${OPENSEARCH_URL:-}" ]; then
  "$ROOT/infra/scripts/opensearch.sh" start
fi
