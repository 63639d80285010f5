#!/usr/bin/env bash
# Install the pinned agent CLIs (tests/agents/pins.txt) from the npm registry into a cache
# folder, for the end-to-end suite: tests/agents/install.sh [FOLDER]. The folder defaults to
# $CAGR_AGENTS_CACHE, else ~/.cache/cagr-agents; the suite looks there (and skips, saying so,
# when an agent is missing or another version). Installing again with the same pins is quick.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
folder="${1:-${CAGR_AGENTS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cagr-agents}}"
mkdir -p "$folder"
specs=()
while read -r agent package version; do
  case "$agent" in '' | '#'*) continue ;; esac
  specs+=("$package@$version")
done <"$here/pins.txt"
command -v npm >/dev/null || { echo "install.sh: npm is not on PATH (Node.js 20 or later)" >&2; exit 1; }
# Claude Code's package copies its native binary into place in a postinstall script; Codex's
# and Gemini CLI's need none. npm's own cache lives in the same folder, so reinstalls stay local.
npm install --prefix "$folder" --no-audit --no-fund --loglevel=error \
  --cache "$folder/npm-cache" "${specs[@]}"
echo "agents installed in $folder: ${specs[*]}"
