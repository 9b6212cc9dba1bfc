/**
 * `npm run bench:cold-start`: each function's built bundle in a fresh Node process against the
 * local engine (DynamoDB Local, in memory, with the demo tenants), timing what a Lambda cold start
 * pays: the process up to the first line of code (boot), importing the bundle (load: parse and
 * evaluate it, and the AWS SDK packages it imports from the runtime), and the first invocation of
 * a typical event (an API Gateway v2 event for a route, SQS, DynamoDB stream or scheduled events
 * for the others), which builds the services it needs (a screening function also loads the
 * watchlist snapshot and builds its index then). Prints each function's median of `--runs` starts,
 * then the median and worst across functions, the functions that screen on their own.
 *
 *   npm run bench:cold-start                         # builds the bundles (infra/cdk/function-bundles.ts)
 *   npm run bench:cold-start -- --cdk-out DIR        # the packages of a synth (another commit's too)
 *   npm run bench:cold-start -- --runs 5 --only 'GET /me,POST /screen'
 *   npm run bench:cold-start -- --cdk-out cdk.out --baseline /tmp/before/cdk.out   # before and after, alternated
 *
 * Only 127.0.0.1 is called: the list sync (which downloads from the publishers) and the origin
 * secret rotation (Secrets Manager, CloudFront) are loaded but not invoked.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { seedDemoTenants } from '../infra/local/demo-tenants.ts';
import { deleteTable, ensureTable, startDynamoDbLocal } from '../infra/local/dynamo.ts';
import { createTable } from '../lib/store/table.ts';
import { type BundleSize, builtBundleSizes, synthesisedBundleSizes } from './bundles.ts';

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const TABLE = 'screening';

interface Invocation {
  kind: 'http' | 'stream' | 'plain' | 'none';
  event?: unknown;
}

interface Timing {
  boot: number;
  load: number;
  first: number;
  total: number;
  /** CPU time (user + system) of the load and of the first invocation: steadier than wall time on a busy machine. */
  cpuLoad: number;
  cpuFirst: number;
  status: string;
}

/** The script each fresh process runs: import the bundle, invoke it once, report the times. */
const CHILD = `
const boot = performance.now();
const cpuAt = () => { const { user, system } = process.cpuUsage(); return (user + system) / 1000; };
const cpuBoot = cpuAt();
process.on('exit', (code) => { if (!globalThis.benchDone) process.stderr.write('exited before the invocation ended, code ' + code + '\\n'); });
globalThis.awslambda = { streamifyResponse: (h) => h, HttpResponseStream: { from: (s, meta) => { s.statusCode = meta.statusCode; return s; } } };
const { Writable } = await import('node:stream');
const { handler } = await import(process.env.BENCH_BUNDLE);
const loaded = performance.now();
const cpuLoaded = cpuAt();
const invocation = JSON.parse(process.env.BENCH_INVOCATION);
const context = { awsRequestId: 'cold-start', functionName: 'bench', getRemainingTimeInMillis: () => 30000 };
let status = '-';
if (invocation.kind === 'http' || invocation.kind === 'plain') {
  const result = await handler(invocation.event, context);
  status = String(result?.statusCode ?? 'ok');
  if (process.env.LOG_LEVEL !== 'silent') console.error(result?.body);
} else if (invocation.kind === 'stream') {
  const stream = new Writable({ write(_chunk, _encoding, callback) { callback(); } });
  const done = new Promise((resolve) => stream.on('finish', resolve).on('close', resolve));
  await handler(invocation.event, stream, context);
  await done;
  status = String(stream.statusCode ?? 200);
}
const first = performance.now();
const cpuFirst = cpuAt() - cpuLoaded;
globalThis.benchDone = true;
// As Lambda freezes a function once it answered, the process ends here, whatever it keeps open.
process.stdout.write('\\n' + JSON.stringify({ boot, load: loaded - boot, first: first - loaded, total: first, cpuLoad: cpuLoaded - cpuBoot, cpuFirst, status }), () => process.exit(0));
`;

function apiEvent(
  method: string,
  rawPath: string,
  key: string,
  body?: unknown,
  params?: Record<string, string>,
) {
  return {
    version: '2.0',
    routeKey: `${method} ${rawPath}`,
    rawPath,
    rawQueryString: '',
    headers: { 'x-api-key': key, 'content-type': 'application/json', host: '127.0.0.1' },
    pathParameters: params,
    body: body === undefined ? undefined : JSON.stringify(body),
    isBase64Encoded: false,
    requestContext: {
      accountId: 'local',
      apiId: 'local',
      domainName: '127.0.0.1',
      domainPrefix: '127',
      http: { method, path: rawPath, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'cold-start' },
      requestId: `cold-start-${Math.random().toString(36).slice(2)}`,
      routeKey: `${method} ${rawPath}`,
      stage: '$default',
      time: new Date().toUTCString(),
      timeEpoch: Date.now(),
    },
  };
}

/** Typical request bodies, by route; the others send none (GET) or `{}`. */
const BODIES: Record<string, unknown> = {
  'POST /screen': { name: 'Vladimir Putin', dob: '1952-10-07', types: 'sanctions,pep', force: true },
  'POST /screens/{screen_id}/dispose': { disposition: 'needs_review', note: 'Check the passport copy' },
  'POST /screens/{screen_id}/replay': {},
  'POST /clients': { name: 'Jane Quillonby', dob: '1980-02-29' },
  'POST /users': { name: 'Cold Start Analyst', role: 'analyst' },
  'PATCH /settings': { retention_days: 2555 },
  'POST /batch/stream': { subjects: [{ name: 'Jane Doe', location: 'Leeds' }] },
  'POST /batch/clients/stream': { subjects: [{ name: 'Jane Doe', dob: '1980-01-01' }] },
};

function invocationOf(
  bundle: BundleSize,
  ids: { key: string; screenId: string; tenantId: string },
): Invocation {
  if (bundle.route) {
    const [method, template] = bundle.name.split(' ');
    const params: Record<string, string> = {};
    const rawPath = template.replace(/\{([a-z_]+)\}/g, (_all, name: string) => {
      params[name] =
        name === 'screen_id'
          ? ids.screenId
          : name === 'asset'
            ? 'swagger-ui.css'
            : `${name.split('_')[0]}_none`;
      return params[name];
    });
    const body =
      BODIES[bundle.name] ?? (method === 'GET' || method === 'DELETE' || method === 'HEAD' ? undefined : {});
    const stream = /^(POST \/batch|GET \/batch|GET \/audit\/export|GET \/screens\/export)/.test(bundle.name);
    return {
      kind: stream ? 'stream' : 'http',
      event: apiEvent(method, rawPath, ids.key, body, Object.keys(params).length > 0 ? params : undefined),
    };
  }
  const name = bundle.name;
  const scheduled = {
    version: '0',
    id: 'cold-start',
    'detail-type': 'Scheduled Event',
    source: 'aws.events',
    account: 'local',
    time: new Date().toISOString(),
    region: 'us-east-1',
    resources: [],
    detail: {},
  };
  if (/list-sync|ListSync|origin-secret|OriginSecretRotation/.test(name)) return { kind: 'none' };
  if (/fallback|UnroutedRequest/.test(name)) {
    return { kind: 'http', event: apiEvent('GET', '/no-such-route', ids.key) };
  }
  if (/batch-worker|Batch\/Worker/.test(name)) {
    const body = JSON.stringify({
      kind: 'batch-subject',
      tenant_id: ids.tenantId,
      batch_id: 'b_none',
      index: 0,
    });
    return { kind: 'plain', event: { Records: [sqsRecord(body)] } };
  }
  if (/webhook-delivery|Webhooks\/Delivery/.test(name)) {
    return { kind: 'plain', event: { Records: [sqsRecord(JSON.stringify({ delivery: 'none' }))] } };
  }
  if (/audit-chain|AuditChain/.test(name)) return { kind: 'plain', event: { Records: [] } };
  return { kind: 'plain', event: scheduled };
}

function sqsRecord(body: string) {
  return {
    messageId: 'cold-start',
    receiptHandle: 'cold-start',
    body,
    attributes: { ApproximateReceiveCount: '1' },
    messageAttributes: {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:screening-batch',
    awsRegion: 'us-east-1',
  };
}

/** A start that takes longer is reported as failed rather than holding the run. */
const CHILD_TIMEOUT_MS = 60_000;

/** Runs `script` in a fresh Node process (an ES module), and resolves with what it printed. */
function runNode(
  script: string,
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
    });
    child.stderr.on('data', (chunk) => {
      err += chunk;
    });
    const timer = setTimeout(() => {
      err += `\nkilled after ${CHILD_TIMEOUT_MS / 1000} s`;
      child.kill('SIGKILL');
    }, CHILD_TIMEOUT_MS);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, out, err });
    });
  });
}

const snapshotEnv = (bundle: BundleSize) =>
  bundle.screens ? { WATCHLIST_SNAPSHOT: path.join(projectRoot, 'data/snapshot/watchlists.json') } : {};

async function runOnce(bundle: BundleSize, invocation: Invocation, env: NodeJS.ProcessEnv): Promise<Timing> {
  const { code, out, err } = await runNode(CHILD, {
    ...env,
    ...snapshotEnv(bundle),
    BENCH_BUNDLE: pathToFileURL(bundle.file).href,
    BENCH_INVOCATION: JSON.stringify(invocation),
  });
  if (process.env.BENCH_LOG_LEVEL) process.stderr.write(`${bundle.name}: ${err}\n`);
  try {
    return JSON.parse(out.slice(out.lastIndexOf('\n') + 1)) as Timing;
  } catch {
    throw new Error(`${bundle.name}: exit ${code}: ${err.slice(0, 600)}`);
  }
}

const median = (values: number[]) => {
  const ordered = [...values].sort((a, b) => a - b);
  const middle = Math.floor(ordered.length / 2);
  return ordered.length % 2 ? ordered[middle] : (ordered[middle - 1] + ordered[middle]) / 2;
};
const ms = (value: number) => `${value.toFixed(0)} ms`;

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const option = (name: string) => {
    const at = args.indexOf(name);
    return at >= 0 ? args[at + 1] : undefined;
  };
  const runs = Number(option('--runs') ?? 3);
  const only = option('--only')
    ?.split(',')
    .map((name) => name.trim());
  const cdkOut = option('--cdk-out');
  const baselineDir = option('--baseline');
  const baseline = baselineDir
    ? new Map(synthesisedBundleSizes(path.resolve(baselineDir)).map((bundle) => [bundle.name, bundle]))
    : undefined;

  let scratch: string | undefined;
  let bundles: BundleSize[];
  if (cdkOut) {
    bundles = synthesisedBundleSizes(path.resolve(cdkOut));
  } else {
    scratch = mkdtempSync(path.join(tmpdir(), 'cold-start-'));
    // As on Lambda, the AWS SDK comes from outside the bundle (the runtime's; here the project's).
    mkdirSync(path.join(scratch, 'node_modules'));
    symlinkSync(path.join(projectRoot, 'node_modules/@aws-sdk'), path.join(scratch, 'node_modules/@aws-sdk'));
    bundles = await builtBundleSizes(path.join(scratch, 'bundles'));
  }
  if (only) bundles = bundles.filter((bundle) => only.includes(bundle.name));
  // POST /screen first (the screen the other screen routes read), then the routes that read or
  // decide it, the deletes after them, POST /me/rotate-key last (it replaces the key every other
  // request uses).
  const rank = (bundle: BundleSize) =>
    bundle.name === 'POST /screen'
      ? 0
      : bundle.name === 'POST /me/rotate-key'
        ? 3
        : bundle.name.startsWith('DELETE ')
          ? 2
          : 1;
  bundles.sort((a, b) => rank(a) - rank(b) || a.name.localeCompare(b.name));

  const dynamo = await startDynamoDbLocal();
  try {
    await deleteTable(dynamo.endpoint, TABLE);
    await ensureTable(dynamo.endpoint, TABLE);
    const keys = await seedDemoTenants(createTable({ tableName: TABLE, endpoint: dynamo.endpoint }));
    const admin = keys.find((key) => key.plan === 'enterprise' && key.role === 'admin') ?? keys[0];
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      TABLE_NAME: TABLE,
      DYNAMODB_ENDPOINT: dynamo.endpoint,
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
      LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'silent',
      SERVICE_VERSION: 'cold-start',
      WEBHOOK_SECRET_KEY: Buffer.alloc(32, 7).toString('base64'),
      WEBHOOK_ALLOW_LOOPBACK: 'true',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    };
    const ids = { key: admin.api_key, screenId: 'scr_none', tenantId: admin.tenant_id };
    // With --baseline, each function of the other build starts right before this one's, run by
    // run, so both see the same machine (a shared one's load moves by the minute).
    const sources = baseline ? (['before', 'now'] as const) : (['now'] as const);
    const results: { source: string; bundle: BundleSize; timing: Timing }[] = [];
    console.log(
      `${bundles.length} functions, ${runs} cold start(s) each${baseline ? `, alternating with ${baselineDir}` : ''}; the median start of each:`,
    );
    for (const bundle of bundles) {
      const timings = new Map<string, Timing[]>(sources.map((source) => [source, []]));
      const of = (source: string) => (source === 'now' ? bundle : baseline?.get(bundle.name));
      for (let run = 0; run < runs; run += 1) {
        for (const source of sources) {
          const target = of(source);
          if (!target) continue;
          try {
            timings.get(source)?.push(await runOnce(target, invocationOf(target, ids), env));
          } catch (error) {
            console.log(`${source} ${bundle.name}: ${(error as Error).message.split('\n')[0]}`);
          }
          if (source === 'now' && bundle.name === 'POST /screen' && ids.screenId === 'scr_none') {
            ids.screenId = await screenIdFrom(bundle, env, ids.key);
          }
        }
      }
      for (const source of sources) {
        const list = (timings.get(source) ?? []).sort((a, b) => a.total - b.total);
        if (list.length === 0) continue;
        const timing = list[Math.floor((list.length - 1) / 2)];
        results.push({ source, bundle: of(source) as BundleSize, timing });
        console.log(
          `${baseline ? `${source.padEnd(7)}` : ''}${bundle.name.padEnd(60)} boot ${ms(timing.boot).padStart(7)}  load ${ms(timing.load).padStart(7)}  first ${ms(timing.first).padStart(7)}  total ${ms(timing.total).padStart(7)}  cpu: load ${ms(timing.cpuLoad).padStart(7)} first ${ms(timing.cpuFirst).padStart(7)}  ${timing.status}`,
        );
      }
    }
    for (const source of sources) {
      const mine = results.filter((result) => result.source === source);
      for (const [label, group] of [
        ['functions that do not screen', mine.filter((result) => !result.bundle.screens)],
        ['functions that screen (load the snapshot)', mine.filter((result) => result.bundle.screens)],
      ] as const) {
        if (group.length === 0) continue;
        const worst = group.reduce((a, b) => (b.timing.total > a.timing.total ? b : a));
        console.log(
          `\n${baseline ? `${source}: ` : ''}${label} (${group.length}): load median ${ms(median(group.map((r) => r.timing.load)))}, worst ${ms(Math.max(...group.map((r) => r.timing.load)))}; ` +
            `load + first invocation median ${ms(median(group.map((r) => r.timing.load + r.timing.first)))}, ` +
            `worst ${ms(Math.max(...group.map((r) => r.timing.load + r.timing.first)))}; ` +
            `total (with boot) median ${ms(median(group.map((r) => r.timing.total)))}, worst ${ms(worst.timing.total)} (${worst.bundle.name}); ` +
            `CPU of load + first invocation median ${ms(median(group.map((r) => r.timing.cpuLoad + r.timing.cpuFirst)))}, worst ${ms(Math.max(...group.map((r) => r.timing.cpuLoad + r.timing.cpuFirst)))}`,
        );
      }
    }
  } finally {
    await dynamo.close();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  }
}

/** One more POST /screen, to read the id of a screen the other routes can act on. */
async function screenIdFrom(bundle: BundleSize, env: NodeJS.ProcessEnv, key: string): Promise<string> {
  const script = `
    const { handler } = await import(process.env.BENCH_BUNDLE);
    const result = await handler(JSON.parse(process.env.BENCH_EVENT), { awsRequestId: 'x', getRemainingTimeInMillis: () => 30000 });
    process.stdout.write('\\n' + (JSON.parse(result.body).screen_id ?? ''), () => process.exit(0));`;
  const { out, err } = await runNode(script, {
    ...env,
    ...snapshotEnv(bundle),
    BENCH_BUNDLE: pathToFileURL(bundle.file).href,
    BENCH_EVENT: JSON.stringify(apiEvent('POST', '/screen', key, BODIES['POST /screen'])),
  });
  // The screen's metrics (CloudWatch embedded metric format) are printed before it.
  const screenId = out.slice(out.lastIndexOf('\n') + 1);
  if (!screenId) throw new Error(`POST /screen gave no screen_id: ${err.slice(0, 600)}`);
  return screenId;
}

await main();
