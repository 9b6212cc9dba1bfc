#!/usr/bin/env bash
# `npm run build:console`: the console (console/) built into dist/console, which the local server
# serves at /console and the CDK stack uploads to the console bucket. The typed API client is
# generated from docs/openapi.json first, then type-checked, so the console cannot drift from the API.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p console/src/generated
npx openapi-typescript docs/openapi.json --output console/src/generated/openapi.ts --silent
npx tsc -p console
npx vite build --config console/vite.config.ts
