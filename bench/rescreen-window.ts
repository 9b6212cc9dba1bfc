/**
 * `npm run bench:window`: what the rescreen window's list-version rule costs a repeat POST /screen.
 *
 * The service runs as its own process (`npm start`'s entry, infra/local/main.ts, on a temporary
 * data directory with the shipped lists). BENCH_SUBJECTS (default 200) subjects, half listed names
 * (every n-th person of the shipped snapshot) and half names no list holds, are screened once. A
 * list sync in a second process then publishes a new snapshot (the real UN file without its first
 * individual), and once the server has loaded it a second set of subjects is screened. The repeats
 * of both sets are then timed one request at a time, alternating between the sets (BENCH_ROUNDS,
 * default 5, repeats of each subject):
 *
 * - `same snapshot`: the cached screen was taken on the lists in force; returned as it is;
 * - `older snapshot`: the cached screen was taken before the sync, so the subject is screened again
 *   in memory and compared with it (the same result here: none of these subjects is the designee
 *   the sync removed), then returned.
 *
 * Prints p50, p90 and p99 in milliseconds per kind, and checks every repeat came back cached.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
const { loadSnapshot } = await import('../lib/matcher/snapshot-file.ts');
const { defaultDataDir } = await import('../lib/watchlists/snapshot.ts');

const repoRoot = resolve(import.meta.dirname, '..');
const subjectsWanted = Number(process.env.BENCH_SUBJECTS ?? 200);
const rounds = Number(process.env.BENCH_ROUNDS ?? 5);
const UN_FILE = 'sanctions/un/UN_consolidated.xml';

const work = mkdtempSync(join(tmpdir(), 'bench-window-'));
const dataDir = join(work, 'data');
const env: NodeJS.ProcessEnv = {
  ...process.env,
  DATA_DIR: dataDir,
  LOG_LEVEL: 'silent',
  WATCHLIST_CHECK_SECONDS: '0',
};
delete env.BATCH_QUEUE_URL;
delete env.SQS_ENDPOINT;
delete env.DYNAMODB_ENDPOINT;

/** The service in its own process; resolves with its URL once it listens. */
function startService(): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(repoRoot, 'infra/local/main.ts')], {
    cwd: repoRoot,
    env: { ...env, PORT: '0' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolvePromise, reject) => {
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const found = /listening on (http:\/\/\S+)/.exec(out);
      if (found) resolvePromise({ url: found[1], child });
    });
    child.on('exit', (code) => reject(new Error(`service exited with ${code}`)));
  });
}

// A mirror of the UN file without its first individual (a real entry removed: nothing invented).
const mirror = join(work, 'mirror');
mkdirSync(dirname(join(mirror, UN_FILE)), { recursive: true });
copyFileSync(join(defaultDataDir(), UN_FILE), join(mirror, UN_FILE));
const xml = readFileSync(join(mirror, UN_FILE), 'utf8');
const start = xml.indexOf('<INDIVIDUAL>');
const end = xml.indexOf('</INDIVIDUAL>', start) + '</INDIVIDUAL>'.length;
writeFileSync(join(mirror, UN_FILE), xml.slice(0, start) + xml.slice(end));

const { url, child } = await startService();
try {
  const keys = JSON.parse(readFileSync(join(dataDir, 'demo-keys.json'), 'utf8')).keys as {
    tenant_id: string;
    role: string;
    api_key: string;
  }[];
  const key = keys.find((k) => k.tenant_id === 'tdemoenterprise' && k.role === 'analyst')?.api_key ?? '';
  const post = async (body: unknown) => {
    const response = await fetch(`${url}/screen`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return (await response.json()) as { screen_id: string; skipped: boolean; risk_level: string };
  };

  // Two disjoint sets of subjects, each half listed names and half names no list holds.
  const { people } = loadSnapshot();
  const step = Math.max(1, Math.floor(people.length / subjectsWanted));
  const listed = people
    .slice(1)
    .filter((_, i) => i % step === 0)
    .map((p) => p.primary_name);
  const given = ['Anna', 'Rahul', 'Mei', 'Carlos', 'Olga', 'Kwame', 'Sofia', 'Yusuf', 'Liam', 'Ines'];
  const family = [
    'Brennholt',
    'Quillonby',
    'Marsetti',
    'Okonkwo-Lind',
    'Vasquez Tor',
    'Haddadin',
    'Lindqvist',
  ];
  const madeUp = (i: number) => `${given[i % given.length]} ${family[i % family.length]} ${i}`;
  const half = Math.floor(subjectsWanted / 2);
  const setOf = (offset: number) => [
    ...listed.slice(offset, offset + half).map((name) => ({ name })),
    ...Array.from({ length: half }, (_, i) => ({ name: madeUp(offset + i) })),
  ];
  const older = setOf(0);
  const same = setOf(half);

  for (const subject of older) await post(subject);

  // The sync, in its own process, on the service's store and table.
  const sync = await promisify(execFile)(
    process.execPath,
    ['--import', 'tsx', join(repoRoot, 'scripts/sync-lists.ts'), '--from', mirror, '--list', 'un_sc'],
    { cwd: repoRoot, env },
  );
  const published = JSON.parse(sync.stdout).snapshot_version;
  if (!published) throw new Error('the sync published no snapshot');
  // Loaded once a forced screen of the designee the sync removed (Eric Badege, UN 6907993) no
  // longer names his UN listing.
  for (const deadline = Date.now() + 120_000; ; await new Promise((r) => setTimeout(r, 500))) {
    const screen = await post({ name: 'Eric Badege', types: 'sanctions', force: true });
    if (!JSON.stringify(screen).includes('"6907993"')) break;
    if (Date.now() > deadline) throw new Error('the service did not load the synced snapshot');
  }
  for (const subject of same) await post(subject);

  const timings: Record<'same snapshot' | 'older snapshot', number[]> = {
    'same snapshot': [],
    'older snapshot': [],
  };
  let fresh = 0;
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < older.length; i++) {
      for (const [kind, subject] of [
        ['older snapshot', older[i]],
        ['same snapshot', same[i]],
      ] as const) {
        const began = performance.now();
        const screen = await post(subject);
        timings[kind].push(performance.now() - began);
        if (!screen.skipped) fresh++;
      }
    }
  }

  const percentile = (values: number[], p: number) => {
    const sorted = [...values].sort((a, b) => a - b);
    return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
  };
  const rows = Object.entries(timings).map(([kind, values]) => ({
    repeat: kind,
    requests: values.length,
    p50_ms: Number(percentile(values, 50).toFixed(2)),
    p90_ms: Number(percentile(values, 90).toFixed(2)),
    p99_ms: Number(percentile(values, 99).toFixed(2)),
  }));
  console.table(rows);
  console.log(`snapshot published by the sync: ${published}; repeats not served from the window: ${fresh}`);
} finally {
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
  rmSync(work, { recursive: true, force: true });
}
