#!/usr/bin/env bash
# `npm run build:console`: the console (console/) built into dist/console, which the local server
# serves at /console and the CDK stack uploads to the console bucket. The typed API client is
# generated from docs/openapi.json first, then type-checked, so the console cannot drift from the API.
# With --if-stale (npm start's prestart) it does nothing when dist/console is newer than every
# source file, docs/openapi.json and the lock file, so a restart does not wait for a rebuild.
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ "${1:-}" == "--if-stale" && -f dist/console/index.html ]]; then
  newer=$(find console docs/openapi.json package-lock.json -newer dist/console/index.html \
    -not -path 'console/src/generated/*' -type f -print -quit)
  if [[ -z "$newer" ]]; then
    exit 0
  fi
fi
mkdir -p console/src/generated
npx openapi-typescript docs/openapi.json --output console/src/generated/openapi.ts --silent
npx tsc -p console
npx vite build --config console/vite.config.ts
