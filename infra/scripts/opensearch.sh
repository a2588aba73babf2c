#!/usr/bin/env bash
# A real single-node OpenSearch from Maven Central artifacts (no Docker engine, no OS package here).
#   opensearch.sh start   install if needed, start (or reuse a healthy node), wait for yellow/green
#   opensearch.sh stop    stop the node this script started
#   opensearch.sh status  print cluster health
# The official integ-test distribution ships only the transport module; analysis-common (lowercase and
# asciifolding, which the search mappings use) is added from its own Maven artifact.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
VERSION="${OPENSEARCH_VERSION:-2.19.3}"
PORT="${OPENSEARCH_PORT:-9200}"
BASE="$ROOT/.data/opensearch"
HOME_DIR="$BASE/opensearch-$VERSION"
PID_FILE="$BASE/opensearch.pid"
URL="http://127.0.0.1:$PORT"
RUN_USER="${OPENSEARCH_USER:-opensearch}"
M2="${MAVEN_REPO:-$HOME/.m2/repository}"

log() { echo "[opensearch] $*" >&2; }
healthy() { curl -fsS "$URL/_cluster/health?wait_for_status=yellow&timeout=1s" >/dev/null 2>&1; }

fetch() { # group:artifact:version:packaging -> path in the local Maven repository
  local g a v p; IFS=: read -r g a v p <<<"$1"
  local path="$M2/${g//.//}/$a/$v/$a-$v.$p"
  if [ ! -f "$path" ]; then
    mvn -q -B dependency:get -Dartifact="$1" -Dtransitive=false >&2
  fi
  echo "$path"
}

install() {
  [ -x "$HOME_DIR/bin/opensearch" ] && [ -f "$HOME_DIR/modules/analysis-common/plugin-descriptor.properties" ] && return
  log "installing OpenSearch $VERSION from Maven Central"
  mkdir -p "$BASE"
  local zip jar
  zip="$(fetch "org.opensearch.distribution.integ-test-zip:opensearch:$VERSION:zip")"
  jar="$(fetch "org.opensearch.plugin:analysis-common:$VERSION:jar")"
  rm -rf "$HOME_DIR" && unzip -q "$zip" -d "$BASE"
  mkdir -p "$HOME_DIR/modules/analysis-common"
  cp "$jar" "$HOME_DIR/modules/analysis-common/"
  cat >"$HOME_DIR/modules/analysis-common/plugin-descriptor.properties" <<PROPS
description=Adds "built in" analyzers to OpenSearch.
version=$VERSION
name=analysis-common
classname=org.opensearch.analysis.common.CommonAnalysisPlugin
java.version=11
opensearch.version=$VERSION
custom.foldername=
extended.plugins=
has.native.controller=false
PROPS
  cat >"$HOME_DIR/config/opensearch.yml" <<YML
cluster.name: conduit-local
node.name: conduit-node
network.host: 127.0.0.1
http.port: $PORT
transport.port: $((PORT + 100))
discovery.type: single-node
path.data: $BASE/data
path.logs: $BASE/logs
cluster.routing.allocation.disk.threshold_enabled: false
action.auto_create_index: false
YML
}

start() {
  if healthy; then log "reusing the healthy node at $URL"; return; fi
  command -v java >/dev/null || { log "java is required"; exit 1; }
  install
  mkdir -p "$BASE/data" "$BASE/logs"
  if [ "$(id -u)" = 0 ]; then
    # OpenSearch refuses to run as root.
    id "$RUN_USER" >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin "$RUN_USER"
    chown -R "$RUN_USER" "$BASE"
  fi
  local started=$SECONDS
  log "starting on $URL"
  local java_home="${JAVA_HOME:-$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")}"
  local cmd="JAVA_HOME='$java_home' OPENSEARCH_JAVA_OPTS='-Xms1g -Xmx1g' '$HOME_DIR/bin/opensearch' -d -p '$PID_FILE' >>'$BASE/logs/launcher.log' 2>&1"
  if [ "$(id -u)" = 0 ]; then su -s /bin/bash "$RUN_USER" -c "$cmd"; else bash -c "$cmd"; fi || {
    log "failed to launch:"; tail -20 "$BASE/logs/launcher.log" >&2; exit 1; }
  for _ in $(seq 1 180); do
    if healthy; then log "ready in $((SECONDS - started))s"; return; fi
    [ -f "$PID_FILE" ] && ! kill -0 "$(cat "$PID_FILE")" 2>/dev/null && break
    sleep 1
  done
  log "did not become healthy; last log lines:"; tail -20 "$BASE/logs/conduit-local.log" >&2 || true
  exit 1
}

stop() {
  [ -f "$PID_FILE" ] || { log "not started by this script"; return; }
  local pid; pid="$(cat "$PID_FILE")"
  kill "$pid" 2>/dev/null || true
  for _ in $(seq 1 60); do kill -0 "$pid" 2>/dev/null || { log "stopped"; rm -f "$PID_FILE"; return; }; sleep 1; done
  kill -9 "$pid" 2>/dev/null || true; rm -f "$PID_FILE"
}

case "${1:-start}" in
  start) start ;;
  stop) stop ;;
  status) curl -fsS "$URL/_cluster/health?pretty" ;;
  *) echo "usage: $0 start|stop|status" >&2; exit 2 ;;
esac
