#!/usr/bin/env bash
# The project's test command (`npm test`): type check, lint, then every test in one vitest run
# (embedded stores, plus the storage tests against AWS's DynamoDB Local). The last line printed
# is vitest's own summary.
set -euo pipefail
cd "$(dirname "$0")/.."
export AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED=true
echo "== type check (tsc --noEmit)"
npx tsc --noEmit
echo "== lint and format check (biome ci)"
npx biome ci . --reporter=summary
echo "== watchlist snapshot (built once here, so parallel test workers don't each build it)"
npx tsx scripts/build-snapshot.ts > /dev/null
echo "== tests (vitest)"
npx vitest run
