#!/usr/bin/env bash
# A real OpenSearch from Maven Central artifacts (no Docker engine, no OS package here): one node, or with
# OPENSEARCH_NODES=N a cluster of N nodes (HTTP on OPENSEARCH_PORT..+N-1, transport on OPENSEARCH_PORT+100..,
# each with its own configuration and data under .data/opensearch/cluster-<port>/, heap OPENSEARCH_HEAP, 512m).
# OPENSEARCH_SHORT_LIVED=1 (set by `./dev test`) leaves C2 to the JVM's hottest code; otherwise the JVM's default.
#   opensearch.sh start        install if needed, start (or reuse) every node, wait for yellow/green
#   opensearch.sh stop         stop the nodes this script started
#   opensearch.sh status       print cluster health
#   opensearch.sh urls         print OPENSEARCH_URL for these nodes (comma-separated)
#   opensearch.sh kill-node I  SIGKILL node I of a cluster (chaos tests); `start` brings it back
# The official integ-test distribution ships only the transport module; analysis-common (lowercase and
# asciifolding, which the search mappings use) is added from its own Maven artifact, and so are lang-painless (with
# its compile dependencies, as the full distribution's modules/lang-painless holds them) and the k-NN plugin's zip,
# which extends painless and stores the embeddings of semantic search (docs/search.md). The k-NN plugin must match
# the engine's version exactly, and Maven Central serves it for 2.19.1 (its 3.x builds need Java 21), hence the
# engine's version. https://opensearch.org/docs/2.19/search-plugins/knn/index/
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
VERSION="${OPENSEARCH_VERSION:-2.19.1}"
KNN_VERSION="$VERSION.0"
PORT="${OPENSEARCH_PORT:-9200}"
BASE="$ROOT/.data/opensearch"
HOME_DIR="$BASE/opensearch-$VERSION"
PID_FILE="$BASE/opensearch.pid"
URL="http://127.0.0.1:$PORT"
RUN_USER="${OPENSEARCH_USER:-opensearch}"
NODES="${OPENSEARCH_NODES:-1}"
CLUSTER_DIR="$BASE/cluster-$PORT"
M2="${MAVEN_REPO:-$HOME/.m2/repository}"

# A node that lives minutes (the test suite's: `./dev test` sets OPENSEARCH_SHORT_LIVED=1) compiles with C2 only what
# is very hot (ten times the JVM's thresholds): C2 compiling everything warm cost more CPU than its code saved. Over
# search-cost.test.ts and kinds-conformance.test.ts on a fresh node: 124 CPU-s with the default, 96 so, 80 with C1
# only; but C1 only made a scanning `like` 1.7x slower (2.2 s against 1.3, past the engine's 5 s bound under load),
# and so it keeps the default's speed (1.4 s against 1.2). `./dev start` and `./dev bench` start a node with the
# JVM's default, as production's engine (infra/compose.yaml) runs, so that benchmarks measure that engine.
# OPENSEARCH_JIT_OPTS overrides both. https://docs.oracle.com/en/java/javase/17/docs/specs/man/java.html
SHORT_LIVED_JIT_OPTS="-XX:Tier4InvocationThreshold=100000 -XX:Tier4MinInvocationThreshold=50000 -XX:Tier4CompileThreshold=120000 -XX:Tier4BackEdgeThreshold=400000"
if [ "${OPENSEARCH_SHORT_LIVED:-0}" = 1 ]; then JIT_OPTS="${OPENSEARCH_JIT_OPTS-$SHORT_LIVED_JIT_OPTS}"; else JIT_OPTS="${OPENSEARCH_JIT_OPTS-}"; fi

log() { echo "[opensearch] $*" >&2; }
healthy() { curl -fsS "$URL/_cluster/health?wait_for_status=yellow&timeout=1s" >/dev/null 2>&1; }
# A node from before the k-NN plugin (another engine version) is not reused: this script stops the one it started.
current() { curl -fsS "$URL/_cat/plugins?h=component" 2>/dev/null | grep -q '^opensearch-knn$'; }

fetch() { # group:artifact:version:packaging -> path in the local Maven repository
  local g a v p; IFS=: read -r g a v p <<<"$1"
  local path="$M2/${g//.//}/$a/$v/$a-$v.$p"
  if [ ! -f "$path" ]; then
    mvn -q -B dependency:get -Dartifact="$1" -Dtransitive=false >&2
  fi
  echo "$path"
}

# lang-painless from its jar and the dependencies its POM names; the policy is the one the full distribution ships.
install_painless() {
  local dir="$HOME_DIR/modules/lang-painless" dep
  mkdir -p "$dir"
  for dep in "org.opensearch.plugin:lang-painless:$VERSION:jar" "org.opensearch.plugin:opensearch-scripting-painless-spi:$VERSION:jar" \
    org.antlr:antlr4-runtime:4.13.1:jar org.ow2.asm:asm:9.7:jar org.ow2.asm:asm-util:9.7:jar org.ow2.asm:asm-tree:9.7:jar \
    org.ow2.asm:asm-commons:9.7:jar org.ow2.asm:asm-analysis:9.7:jar; do
    cp "$(fetch "$dep")" "$dir/"
  done
  cat >"$dir/plugin-descriptor.properties" <<PROPS
description=An easy, safe and fast scripting language for OpenSearch
version=$VERSION
name=lang-painless
classname=org.opensearch.painless.PainlessPlugin
java.version=11
opensearch.version=$VERSION
custom.foldername=
extended.plugins=
has.native.controller=false
PROPS
  cat >"$dir/plugin-security.policy" <<'POLICY'
grant {
  // painless compiles scripts to classes at run time
  permission java.lang.RuntimePermission "createClassLoader";
  permission java.lang.RuntimePermission "getClassLoader";
};
POLICY
}

# The k-NN plugin's zip is an installable plugin as published; only the Lucene engine is used (docs/search.md).
install_knn() {
  local zip; zip="$(fetch "org.opensearch.plugin:opensearch-knn:$KNN_VERSION:zip")"
  rm -rf "$HOME_DIR/plugins/opensearch-knn" && mkdir -p "$HOME_DIR/plugins/opensearch-knn"
  unzip -q "$zip" -d "$HOME_DIR/plugins/opensearch-knn"
}

install() {
  [ -x "$HOME_DIR/bin/opensearch" ] && [ -f "$HOME_DIR/modules/analysis-common/plugin-descriptor.properties" ] &&
    [ -f "$HOME_DIR/plugins/opensearch-knn/plugin-descriptor.properties" ] && return
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
  install_painless
  install_knn
  cat >"$HOME_DIR/config/opensearch.yml" <<YML
cluster.name: conduit-local
node.name: conduit-node
network.host: 127.0.0.1
http.port: $PORT
transport.port: $((PORT + 100))
discovery.type: single-node
path.data: $BASE/data-$VERSION
path.logs: $BASE/logs
cluster.routing.allocation.disk.threshold_enabled: false
action.auto_create_index: false
YML
}

start() {
  if healthy && current; then log "reusing the healthy node at $URL"; return; fi
  if healthy; then
    [ -f "$PID_FILE" ] || { log "the node at $URL has no k-NN plugin and was not started here; stop it first"; exit 1; }
    log "replacing the node at $URL (no k-NN plugin)"; stop
  fi
  command -v java >/dev/null || { log "java is required"; exit 1; }
  install
  mkdir -p "$BASE/data-$VERSION" "$BASE/logs"
  if [ "$(id -u)" = 0 ]; then
    # OpenSearch refuses to run as root.
    id "$RUN_USER" >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin "$RUN_USER"
    chown -R "$RUN_USER" "$BASE"
  fi
  local started=$SECONDS
  log "starting on $URL"
  local java_home="${JAVA_HOME:-$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")}"
  local cmd="JAVA_HOME='$java_home' OPENSEARCH_JAVA_OPTS='-Xms1g -Xmx1g $JIT_OPTS' '$HOME_DIR/bin/opensearch' -d -p '$PID_FILE' >>'$BASE/logs/launcher.log' 2>&1"
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

urls() {
  local list=() i
  for ((i = 0; i < NODES; i++)); do list+=("http://127.0.0.1:$((PORT + i))"); done
  local IFS=,
  echo "${list[*]}"
}

node_up() { curl -fsS "http://127.0.0.1:$(($PORT + $1))/" >/dev/null 2>&1; }

# Node I of the cluster: its own configuration folder (OPENSEARCH_PATH_CONF), data, logs and pid file.
launch_node() {
  local i=$1 dir="$CLUSTER_DIR/node-$1" seeds="" managers="" j
  for ((j = 0; j < NODES; j++)); do
    seeds+="${seeds:+, }\"127.0.0.1:$((PORT + 100 + j))\""
    managers+="${managers:+, }\"node-$j\""
  done
  mkdir -p "$dir/config" "$dir/data-$VERSION" "$dir/logs"
  cp -r "$HOME_DIR/config/." "$dir/config/"
  cat >"$dir/config/opensearch.yml" <<YML
cluster.name: conduit-local-$PORT
node.name: node-$i
network.host: 127.0.0.1
http.port: $((PORT + i))
transport.port: $((PORT + 100 + i))
discovery.seed_hosts: [$seeds]
cluster.initial_cluster_manager_nodes: [$managers]
path.data: $dir/data-$VERSION
path.logs: $dir/logs
cluster.routing.allocation.disk.threshold_enabled: false
action.auto_create_index: false
YML
  [ "$(id -u)" = 0 ] && chown -R "$RUN_USER" "$CLUSTER_DIR"
  local java_home="${JAVA_HOME:-$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")}"
  local heap="${OPENSEARCH_HEAP:-512m}"
  local cmd="JAVA_HOME='$java_home' OPENSEARCH_PATH_CONF='$dir/config' OPENSEARCH_JAVA_OPTS='-Xms$heap -Xmx$heap $JIT_OPTS' '$HOME_DIR/bin/opensearch' -d -p '$dir/opensearch.pid' >>'$dir/logs/launcher.log' 2>&1"
  if [ "$(id -u)" = 0 ]; then su -s /bin/bash "$RUN_USER" -c "$cmd"; else bash -c "$cmd"; fi || {
    log "node $i failed to launch:"; tail -20 "$dir/logs/launcher.log" >&2; exit 1; }
}

start_cluster() {
  command -v java >/dev/null || { log "java is required"; exit 1; }
  install
  if [ "$(id -u)" = 0 ]; then
    id "$RUN_USER" >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin "$RUN_USER"
    chown -R "$RUN_USER" "$BASE"
  fi
  local started=$SECONDS i
  for ((i = 0; i < NODES; i++)); do
    if node_up "$i" && curl -fsS "http://127.0.0.1:$((PORT + i))/_nodes/_local/plugins" 2>/dev/null | grep -q '"opensearch-knn"'; then continue; fi
    if node_up "$i" && [ -f "$CLUSTER_DIR/node-$i/opensearch.pid" ]; then # an older engine without k-NN
      log "replacing node $i (no k-NN plugin)"; kill "$(cat "$CLUSTER_DIR/node-$i/opensearch.pid")" 2>/dev/null || true
      for _ in $(seq 1 60); do node_up "$i" || break; sleep 1; done
    fi
    log "starting node $i on http://127.0.0.1:$((PORT + i))"
    launch_node "$i"
  done
  for _ in $(seq 1 240); do
    if curl -fsS "$URL/_cluster/health?wait_for_status=yellow&wait_for_nodes=$NODES&timeout=1s" >/dev/null 2>&1; then
      log "$NODES nodes ready in $((SECONDS - started))s"; return
    fi
    sleep 1
  done
  log "the cluster did not form; last log lines of node 0:"; tail -20 "$CLUSTER_DIR/node-0/logs/conduit-local-$PORT.log" >&2 || true
  exit 1
}

stop_cluster() {
  local i pid
  for ((i = 0; i < NODES; i++)); do
    [ -f "$CLUSTER_DIR/node-$i/opensearch.pid" ] || continue
    pid="$(cat "$CLUSTER_DIR/node-$i/opensearch.pid")"
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 60); do kill -0 "$pid" 2>/dev/null || break; sleep 1; done
    kill -9 "$pid" 2>/dev/null || true
    rm -f "$CLUSTER_DIR/node-$i/opensearch.pid"
  done
  log "stopped"
}

stop() {
  [ -f "$PID_FILE" ] || { log "not started by this script"; return; }
  local pid; pid="$(cat "$PID_FILE")"
  kill "$pid" 2>/dev/null || true
  for _ in $(seq 1 60); do kill -0 "$pid" 2>/dev/null || { log "stopped"; rm -f "$PID_FILE"; return; }; sleep 1; done
  kill -9 "$pid" 2>/dev/null || true; rm -f "$PID_FILE"
}

case "${1:-start}" in
  start) if [ "$NODES" -gt 1 ]; then start_cluster; else start; fi ;;
  stop) if [ "$NODES" -gt 1 ]; then stop_cluster; else stop; fi ;;
  status) curl -fsS "$URL/_cluster/health?pretty" ;;
  urls) urls ;;
  kill-node) kill -9 "$(cat "$CLUSTER_DIR/node-${2:?which node}/opensearch.pid")" ;;
  *) echo "usage: $0 start|stop|status|urls|kill-node I" >&2; exit 2 ;;
esac
