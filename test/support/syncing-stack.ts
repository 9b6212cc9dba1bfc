/**
 * `npm start`'s stack syncing its lists on its in-process schedule from a local mirror: the
 * environment it reads (setSyncEnvironment), and the stack syncing two small real lists every
 * second from a mirror served over HTTP (startSyncingStack).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type LocalStack, startLocalStack } from '../../infra/local/stack.ts';
import { writeSnapshot } from '../../lib/matcher/snapshot-file.ts';
import {
  createListMirror,
  EXECUTIVE_FILE,
  type ListMirror,
  type MirrorServer,
  serveMirror,
  snapshotOfLists,
  UN_FILE,
} from './list-mirror.ts';

export interface SyncEnvironment {
  /** Where the bundled snapshot goes (WATCHLIST_SNAPSHOT): write it before the stack starts. */
  bundledSnapshot: string;
  /** The folder the sync reads when no `from` is given (LIST_SYNC_FROM). */
  mirrorDir: string;
  /** Takes the settings out of the environment again and deletes the temporary folder. */
  restore(): void;
}

/**
 * Sets the environment of a stack syncing `lists` every `intervalSeconds` from `from` (a mirror's
 * URL; by default the folder `mirrorDir`), its bundled snapshot and snapshot store in a temporary
 * folder; `more` are further settings (LIST_SYNC_TIMEOUT_SECONDS, WATCHLIST_CHECK_SECONDS).
 */
export function setSyncEnvironment(options: {
  lists: readonly string[];
  intervalSeconds: number;
  from?: string;
  more?: Record<string, string>;
}): SyncEnvironment {
  const work = mkdtempSync(join(tmpdir(), 'sync-environment-'));
  const env = {
    WATCHLIST_SNAPSHOT: join(work, 'bundled.json'),
    WATCHLIST_STORE_DIR: join(work, 'store'),
    LIST_SYNC_INTERVAL_SECONDS: String(options.intervalSeconds),
    LIST_SYNC_LISTS: options.lists.join(','),
    LIST_SYNC_FROM: options.from ?? join(work, 'mirror'),
    ...options.more,
  };
  Object.assign(process.env, env);
  return {
    bundledSnapshot: env.WATCHLIST_SNAPSHOT,
    mirrorDir: join(work, 'mirror'),
    restore: () => {
      for (const name of Object.keys(env)) delete process.env[name];
      rmSync(work, { recursive: true, force: true });
    },
  };
}

export interface SyncingStack {
  stack: LocalStack;
  /** The publishers' files the stack syncs from: change them to change a list. */
  mirror: ListMirror;
  server: MirrorServer;
  /** Stops the stack and the mirror, and restores the environment. */
  close(): Promise<void>;
}

/** Starts the stack; `timeoutSeconds` is how long a sync waits for one file (LIST_SYNC_TIMEOUT_SECONDS). */
export async function startSyncingStack(options: { timeoutSeconds: number }): Promise<SyncingStack> {
  const lists = ['un_sc', 'us_executive_pep'];
  const mirror = createListMirror([UN_FILE, EXECUTIVE_FILE]);
  const server = await serveMirror(mirror);
  const environment = setSyncEnvironment({
    lists,
    intervalSeconds: 1,
    from: server.url,
    more: { WATCHLIST_CHECK_SECONDS: '0', LIST_SYNC_TIMEOUT_SECONDS: String(options.timeoutSeconds) },
  });
  writeSnapshot(snapshotOfLists(lists), environment.bundledSnapshot);
  const stack = await startLocalStack({ dataDir: null });
  return {
    stack,
    mirror,
    server,
    close: async () => {
      await stack.close();
      await server.close();
      mirror.close();
      environment.restore();
    },
  };
}
