/**
 * The service as its own process, as a user's client meets it: `npm start`'s entry
 * (infra/local/main.ts) on a free loopback port and a temporary data directory. The benchmarks
 * that measure the service (bench:alert-lag, bench:export, bench:batch, bench:rescreen) drive it
 * from their own process, so the load generator never shares the service's event loop.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
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
  stdout?: 'pipe' | 'ignore' | 'inherit';
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

/** Clock ticks per second of /proc/<pid>/stat's CPU times (`getconf CLK_TCK`; 100 on Linux). */
const clockTicks = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/**
 * CPU seconds a process has used so far, user and system, all its threads (fields 14 and 15 of
 * /proc/<pid>/stat): what the service spent, whoever else shares the machine.
 */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command name (field 2) may hold spaces: count fields after its closing parenthesis.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / clockTicks;
}

export interface DemoKey {
  tenant_id: string;
  role: string;
  plan: string;
  api_key: string;
}

export interface RunningService {
  url: string;
  pid: number;
  /** The service's data directory (its store's endpoint is in `dynamodb-endpoint` there). */
  dataDir: string;
  /** The demo keys the service wrote at start (`.data/demo-keys.json` under its data directory). */
  demoKeys: DemoKey[];
  /** CPU seconds the service process has used so far. */
  cpuSeconds(): number;
  stop(): Promise<void>;
}

/**
 * Starts the service as `npm start` does, in its own process on a free port with a fresh data
 * directory, and waits until `/health` says ok and the demo keys are written.
 */
export async function startService(
  options: Partial<Pick<ServiceOptions, 'env' | 'nodeArgs' | 'stdout'>> = {},
): Promise<RunningService> {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-service-'));
  const port = await freePort();
  const child = spawnService({ port, dataDir, ...options });
  const url = `http://127.0.0.1:${port}`;
  let exited: string | undefined;
  child.once('exit', (code, signal) => {
    exited = `exited with ${code ?? signal}`;
  });
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const gone = new Promise((done) => child.once('exit', done));
      child.kill('SIGTERM');
      await gone;
    }
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    await waitFor(
      'the service',
      async () => (exited ? true : (await fetch(`${url}/health`)).ok || undefined),
      180_000,
    );
    if (exited) throw new Error(`the service ${exited}`);
    const keysFile = join(dataDir, 'demo-keys.json');
    const demoKeys = await waitFor('demo keys', async () =>
      existsSync(keysFile) ? (JSON.parse(readFileSync(keysFile, 'utf8')).keys as DemoKey[]) : undefined,
    );
    const pid = child.pid as number;
    return { url, pid, dataDir, demoKeys, cpuSeconds: () => cpuSeconds(pid), stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
