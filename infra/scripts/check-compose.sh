#!/usr/bin/env bash
# Validates infra/compose.yaml with `docker compose config` where a Docker CLI exists (no engine is needed): when
# the CLI has no Compose plugin, Debian's docker-compose is installed for the check. Skips cleanly where there is
# no Docker CLI at all. Dummy secrets satisfy the file's required variables.
set -euo pipefail
cd "$(dirname "$0")/../.."
if command -v docker >/dev/null 2>&1 && ! docker compose version >/dev/null 2>&1 \
  && ! command -v docker-compose >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "[compose] installing Debian's docker-compose to check infra/compose.yaml" >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq docker-compose >/dev/null 2>&1 \
    || { apt-get update -qq >/dev/null 2>&1 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq docker-compose >/dev/null 2>&1; } \
    || echo "[compose] could not install docker-compose" >&2
fi
if docker compose version >/dev/null 2>&1; then
  compose=(docker compose)
elif command -v docker-compose >/dev/null 2>&1; then
  compose=(docker-compose)
else
  echo "[compose] no docker compose CLI here: skipping the compose.yaml check"
  exit 0
fi
ENCRYPTION_KEY=compose-check-encryption-key TOKEN_SIGNING_KEY=compose-check-token-signing-key \
  "${compose[@]}" -f infra/compose.yaml config --quiet
echo "[compose] infra/compose.yaml is valid (${compose[*]} config)"
