/**
 * The documented offline example, `npm run sync -- --from bundled`, run as an operator runs it on
 * a fresh clone (a child process, an empty store and table): every synced list is read from its
 * bundled copy and none fails; a second run finds every list unchanged.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LIST_FEEDS } from '../../lib/sync/feeds.ts';

const work = mkdtempSync(join(tmpdir(), 'bundled-sync-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A fresh clone's environment: the local store (table and snapshot store) under an empty DATA_DIR. */
function freshCloneEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: work };
  for (const name of Object.keys(env)) {
    if (/^(DYNAMODB_ENDPOINT|TABLE_NAME|WATCHLIST_|LIST_SYNC_|BATCH_QUEUE_URL)/.test(name)) delete env[name];
  }
  return env;
}

/** The command exactly as docs/lists-and-matching.md shows it, on a store of its own. */
function npmRunSync() {
  const run = spawnSync('npm', ['run', '--silent', 'sync', '--', '--from', 'bundled'], {
    encoding: 'utf8',
    env: freshCloneEnv(),
    timeout: 240_000,
  });
  const lists = (JSON.parse(run.stdout || '{}').lists ?? []) as {
    list: string;
    status: string;
    error?: string;
  }[];
  return { status: run.status, stderr: run.stderr, lists };
}

describe('npm run sync -- --from bundled', () => {
  // Two runs of the whole sync: the first parses every list (about 40 s on a quiet 2-core machine),
  // the second only hashes the files; each may take up to its 240 s spawn timeout on a loaded one.
  it('succeeds on a fresh store for every synced list, and finds them unchanged the next time', {
    timeout: 500_000,
  }, () => {
    const first = npmRunSync();
    expect(first.status, first.stderr).toBe(0);
    expect(first.lists.map((l) => [l.list, l.status])).toEqual(LIST_FEEDS.map((f) => [f.listId, 'updated']));

    const second = npmRunSync();
    expect(second.status, second.stderr).toBe(0);
    expect(second.lists.map((l) => [l.list, l.status])).toEqual(
      LIST_FEEDS.map((f) => [f.listId, 'unchanged']),
    );
    expect(readFileSync(join(work, 'watchlists', 'latest'), 'utf8')).toMatch(/^watchlists-/);
  });
});
