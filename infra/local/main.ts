import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { localSettings } from '../../lib/common/config.ts';
import { startLocalStack } from './stack.ts';

/**
 * `npm start`: the whole API on localhost with real watchlist data and demo keys.
 * PORT (default 3000), DATA_DIR (default .data), DYNAMODB_ENDPOINT / SQS_ENDPOINT to use external stores.
 */
const settings = localSettings();
const dataDir = resolve(settings.dataDir);
mkdirSync(dataDir, { recursive: true });

// From the process's start: loading the modules is part of what a person waits for.
const elapsed = () => `${process.uptime().toFixed(1)} s`;
// Each step as it happens: a first start compiles the snapshot, which takes a while.
const stack = await startLocalStack({
  dataDir,
  port: settings.port,
  onProgress: (line) => process.stdout.write(`[${elapsed()}] ${line}\n`),
});

const lines = stack.demoKeys.map(
  (k) => `  ${k.tenant.padEnd(22)} ${k.plan.padEnd(11)} ${k.role.padEnd(8)} ${k.api_key}`,
);
process.stdout.write(
  [
    '',
    `Individual Screening Service listening on ${stack.url}, ready in ${elapsed()}`,
    `Demo API keys (also in ${resolve(dataDir, 'demo-keys.json')}):`,
    ...lines,
    '',
    `Try: curl -s ${stack.url}/me -H "X-API-Key: ${stack.demoKeys[0].api_key}"`,
    `Console (sign in with a key above): ${stack.url}/console`,
    `API reference (Authorize with a key above, then Try it out): ${stack.url}/docs`,
    '',
  ].join('\n'),
);

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  process.stdout.write(`\n${signal} received, shutting down\n`);
  await stack.close();
  process.exit(0);
}
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));
