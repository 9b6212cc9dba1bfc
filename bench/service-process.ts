/**
 * The service as its own process, as a user's client meets it: `npm start`'s entry
 * (infra/local/main.ts) on a free loopback port and a temporary data directory. The benchmarks
 * that measure the service (bench:alert-lag, bench:export) drive it from their own process.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';

const repoRoot = resolve(import.meta.dirname, '..');

/** A loopback port nothing listens on now. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as { port: number };
  await new Promise((done) => server.close(done));
  return port;
}

export interface ServiceOptions {
  port: number;
  dataDir: string;
  /** More environment for the service (its log level, list sync, an external table). */
  env?: Record<string, string>;
  /** Node flags before the entry (a heap cap). */
  nodeArgs?: readonly string[];
  /** `pipe` to read the service's JSON log lines from `stdout`; default ignored. */
  stdout?: 'pipe' | 'ignore';
}

export function spawnService(options: ServiceOptions): ChildProcess {
  return spawn(
    process.execPath,
    [...(options.nodeArgs ?? []), '--import', 'tsx', join(repoRoot, 'infra/local/main.ts')],
    {
      cwd: repoRoot,
      env: {
        ...process.env,
        AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
        DATA_DIR: options.dataDir,
        PORT: String(options.port),
        LOG_LEVEL: 'warn',
        ...options.env,
      },
      stdio: ['ignore', options.stdout ?? 'ignore', 'inherit'],
    },
  );
}

/** Polls `read` until it gives a value (a read that throws counts as not yet); `describe` names what hangs. */
export async function waitFor<T>(
  what: string,
  read: () => Promise<T | undefined>,
  timeoutMs = 180_000,
  describe: () => string = () => '',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const value = await read();
      if (value !== undefined) return value;
    } catch {
      // not up yet
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${describe()}`);
    await new Promise((done) => setTimeout(done, 100));
  }
}
