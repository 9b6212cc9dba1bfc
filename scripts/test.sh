#!/usr/bin/env bash
# The project's test command (`npm test`): type check, lint, the OpenAPI document's lint, then every test in one vitest run
# (embedded stores, plus the storage tests against AWS's DynamoDB Local). The last line printed
# is vitest's count in the plain form `vitest: N passed, N failed`. The run measures coverage and
# fails below the floor set in vitest.config.ts.
set -euo pipefail
cd "$(dirname "$0")/.."
export AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED=true
# The watchlist snapshot, built once here so the test workers don't each build it, and skipped
# when its inputs are unchanged (scripts/build-snapshot.ts keeps their hash beside it). On a fresh
# clone it compiles for a minute or two on one core: in the background, beside the checks below.
snapshot_log=$(mktemp)
npx tsx scripts/build-snapshot.ts > "$snapshot_log" 2>&1 &
snapshot_pid=$!
trap 'kill "$snapshot_pid" 2> /dev/null || true; rm -f "$snapshot_log"' EXIT
echo "== type check (tsc --noEmit)"
npx tsc --noEmit
echo "== lint and format check (biome ci)"
npx biome ci . --reporter=summary
echo "== OpenAPI document lint (redocly lint, rules in redocly.yaml)"
REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true npx redocly lint docs/openapi.json --format=summary
echo "== console build (npm run build:console: typed client from docs/openapi.json, tsc, vite; the browser tests load it; skipped when dist/console is newer than its sources, as after npm run synth)"
bash scripts/build-console.sh --if-stale
echo "== watchlist snapshot"
if ! wait "$snapshot_pid"; then
  cat "$snapshot_log"
  exit 1
fi
tail -n 1 "$snapshot_log"
echo "== tests (vitest)"
results=.vitest-results.json
rm -f "$results"
set +e
npx vitest run --coverage --reporter=default --reporter=json --outputFile.json="$results"
status=$?
set -e
# The closing line in the plain form CI reads: "vitest: N passed, N failed[, N skipped]".
node -e '
  const r = JSON.parse(require("node:fs").readFileSync(process.argv[1], "utf8"));
  const skipped = r.numPendingTests + r.numTodoTests;
  console.log(`vitest: ${r.numPassedTests} passed, ${r.numFailedTests} failed` + (skipped ? `, ${skipped} skipped` : ""));
' "$results" || echo "vitest: 0 passed, 1 failed"
exit $status
