/**
 * `npm run sync`: one list sync, by hand. With no --from it downloads from the publishers'
 * official URLs; --from names a mirror (a directory laid out like the feeds' `mirror` paths, or the
 * base URL of a local HTTP server over one) for a machine with no internet, or `bundled`: the
 * copies under data/ (lib/sync/bundled.ts), which works on a fresh clone.
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { openTable } from '../infra/local/open-table.ts';
import { readConfig } from '../lib/common/config.ts';
import { runListSync, summariseSync } from '../lib/jobs/run-sync.ts';
import { getServices } from '../lib/runtime/services.ts';
import { LIST_FEEDS } from '../lib/sync/feeds.ts';

const USAGE = `List sync: npm run sync -- [options]

  --from DIR|URL        a mirror directory or base URL (default: each publisher's official URL);
  --from bundled        the copies bundled under data/ (no network: a fresh clone's example)
  --list ID             only this list (repeatable); lists: ${LIST_FEEDS.map((f) => f.listId).join(', ')}
  --accept-drop ID      accept this list's count outside the bounds (10% below, 25% above its
                        baseline), once you have confirmed on the publisher's site that it changed
                        for real; the new count becomes the baseline (repeatable)
  --store DIR           the snapshot store (default WATCHLIST_STORE_DIR, else DATA_DIR/watchlists);
                        with WATCHLIST_BUCKET set, that S3 bucket instead
  --table NAME, --endpoint URL, --region R   the status table (default: the local runtime's store)

A list refused by the sanity checks is held for review: npm run admin -- sync-review --list ID
(then sync-accept or sync-reject). Exit code 1 when a list failed or was held.

A running \`npm start\` that uses the same store picks the new snapshot up within
WATCHLIST_CHECK_SECONDS (default 60), without a restart. Registered clients who could match an
added or amended listing are made due at once (rescreened at once with BATCH_QUEUE_URL set,
else by the running server's hourly rescreen).
`;

const { values } = parseArgs({
  options: {
    from: { type: 'string' },
    list: { type: 'string', multiple: true },
    'accept-drop': { type: 'string', multiple: true },
    store: { type: 'string' },
    table: { type: 'string' },
    endpoint: { type: 'string' },
    region: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  },
});
if (values.help) {
  process.stdout.write(USAGE);
  process.exit(0);
}

const storeDir =
  values.store ?? process.env.WATCHLIST_STORE_DIR ?? resolve(process.env.DATA_DIR ?? '.data', 'watchlists');
const { table, close } = await openTable({
  table: values.table,
  endpoint: values.endpoint,
  region: values.region,
});
try {
  const config = readConfig({ ...process.env, TABLE_NAME: table.name, WATCHLIST_STORE_DIR: storeDir });
  const report = await runListSync({
    config,
    table,
    from: values.from,
    lists: values.list,
    acceptDrops: values['accept-drop'],
    // Beside a running `npm start` its queue is in its own process: the clients a change could
    // match are made due, and its hourly rescreen takes them. With a queue configured, at once.
    batchQueue: config.BATCH_QUEUE_URL ? getServices().batchQueue : undefined,
  });
  process.stdout.write(`${JSON.stringify(summariseSync(report), null, 2)}\n`);
  process.exitCode = report.outcomes.some((o) => o.status === 'failed') ? 1 : 0;
} catch (error) {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 2;
} finally {
  await close();
}
