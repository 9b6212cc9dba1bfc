/**
 * `npm run soak`: long-lived clients on kept-alive connections, as a tenant's integration holds
 * them, against the service in its own process (bench/service-process.ts: `npm start`'s entry on
 * a free loopback port and a fresh data directory). Issue 36, item 2: the local server once closed
 * idle keep-alive sockets after Node's 5 s while clients kept them 4 s and more, and a request
 * sent as the server closed its socket died with ECONNRESET or "socket hang up".
 *
 * SOAK_CLIENTS (default 24) clients, each waiting a random 0-10 s between requests, for
 * `--minutes N` or SOAK_MINUTES (default 10). Half the clients use fetch (Node's bundled undici:
 * a pool of kept-alive sockets, shared by those clients, that honours the server's Keep-Alive
 * hint); half use node:http with an Agent of their own (keepAlive, one socket per client, kept
 * until the server closes it). Each request is one of a mix: POST /screen of a listed person
 * (a real name from the shipped snapshot) or of an unlisted one (a generated name), GET
 * /screens/{id} of a screen the client made, and the lists (/screens, /screens/pending,
 * /clients). Bounded: no request starts after the deadline, each has 60 s, and the run is
 * abandoned two minutes after the deadline.
 *
 * Prints requests, resets (ECONNRESET, socket hang up, the socket closed under a request), 5xx,
 * timeouts, other failures, and latency p50/p99 per route and overall; exits 1 when any request
 * was reset, answered 5xx or failed otherwise (a refused connection: the service is gone). A
 * timeout is reported but does not fail the run: on a shared machine under heavy load a screen
 * can take that long, and no connection was lost.
 */
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { faker } from '@faker-js/faker';
import { random } from './random.ts';

process.env.LOG_LEVEL ??= 'warn';
const { startService } = await import('./service-process.ts');
const { loadSnapshot } = await import('../lib/matcher/snapshot-file.ts');
const { perListPeople } = await import('../lib/watchlists/linking.ts');

const { values: args } = parseArgs({ options: { minutes: { type: 'string' } } });
const minutes = Number(args.minutes ?? process.env.SOAK_MINUTES ?? 10);
const clientCount = Number(process.env.SOAK_CLIENTS ?? 24);
const MAX_GAP_MS = 10_000;
/** A request with no answer by then is counted as a timeout (reported, not a failure: a busy machine, not a reset). */
const REQUEST_TIMEOUT_MS = 60_000;
/** Node's default keepAliveTimeout: a socket idle this long was closed by the server before the fix. */
const NODE_DEFAULT_KEEP_ALIVE_MS = 5_000;
if (!(minutes > 0) || !(clientCount > 0))
  throw new Error('soak: --minutes and SOAK_CLIENTS must be positive');

/** One request's outcome. */
interface Outcome {
  route: string;
  /** The client's connection: `fetch` (undici's pool) or `agent` (node:http, its own socket). */
  client: 'fetch' | 'agent';
  ms: number;
  status?: number;
  /** Set when no answer came: `reset` (the connection was closed under the request), `timeout`, `other`. */
  failure?: 'reset' | 'timeout' | 'other';
  error?: string;
  /** The client had been idle this long before sending. */
  idleMs: number;
}

interface Answer {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: the soak reads arbitrary JSON bodies
  body: any;
}

/** How a client sends one request; each kind keeps its connection alive between requests. */
type Send = (method: 'GET' | 'POST', path: string, body?: unknown) => Promise<Answer>;

function fetchClient(base: string, apiKey: string): Send {
  return async (method, path, body) => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    const text = await response.text();
    return { status: response.status, body: parseJson(text) };
  };
}

function agentClient(base: string, apiKey: string): Send {
  const agent = new HttpAgent({ keepAlive: true, maxSockets: 1 });
  return (method, path, body) =>
    new Promise((settle, fail) => {
      const payload = body === undefined ? undefined : JSON.stringify(body);
      const req = httpRequest(
        `${base}${path}`,
        {
          method,
          agent,
          headers: {
            'x-api-key': apiKey,
            'content-type': 'application/json',
            ...(payload ? { 'content-length': Buffer.byteLength(payload) } : {}),
          },
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => {
            text += chunk;
          });
          res.on('end', () => settle({ status: res.statusCode ?? 0, body: parseJson(text) }));
          res.on('error', fail);
        },
      );
      req.setTimeout(REQUEST_TIMEOUT_MS, () =>
        req.destroy(Object.assign(new Error('no answer in time'), { name: 'TimeoutError' })),
      );
      req.on('error', fail);
      req.end(payload);
    });
}

function parseJson(text: string): unknown {
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return text;
  }
}

/** What failed, from the error and its causes (fetch wraps undici's socket error in `cause`). */
function failureOf(error: unknown): Pick<Outcome, 'failure' | 'error'> {
  const chain: { name?: string; code?: string; message?: string }[] = [];
  for (let e = error as { cause?: unknown } | undefined; e && chain.length < 5; e = e.cause as typeof e)
    chain.push(e as (typeof chain)[number]);
  const text = chain.map((e) => [e.name, e.code, e.message].filter(Boolean).join(' ')).join(' <- ');
  if (chain.some((e) => e.name === 'TimeoutError')) return { failure: 'timeout', error: text };
  const reset = chain.some(
    (e) =>
      e.code === 'ECONNRESET' ||
      e.code === 'EPIPE' ||
      e.code === 'UND_ERR_SOCKET' ||
      /socket hang up|other side closed/i.test(e.message ?? ''),
  );
  return { failure: reset ? 'reset' : 'other', error: text };
}

const percentile = (sorted: number[], p: number) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] : Number.NaN;

// Real listed people (the shipped snapshot's primary names, with a listed date of birth when there
// is a full one) and generated unlisted people (faker, seeded): the screens a bank sends.
const listed = perListPeople(loadSnapshot()).map((person) => ({
  name: person.names[0].name,
  dob: person.dobs.flatMap((d) => (d.kind === 'date' && !d.approximate ? [d.date] : []))[0],
}));
faker.seed(36);
const rand = random(36);
const pick = <T>(items: readonly T[]): T => items[Math.floor(rand() * items.length)];

const loadAtStart = loadavg();
const service = await startService();
const enterprise = service.demoKeys.filter((k) => k.tenant_id === 'tdemoenterprise');
const outcomes: Outcome[] = [];
const startedAt = Date.now();
const deadline = startedAt + minutes * 60_000;
console.log(
  `Soak: ${clientCount} clients (${Math.ceil(clientCount / 2)} on fetch, ${Math.floor(clientCount / 2)} on node:http ` +
    `keep-alive agents), idle gaps 0-${MAX_GAP_MS / 1000} s, ${minutes} min, against ${service.url} (its own process); ` +
    `load average at start ${loadAtStart.map((l) => l.toFixed(2)).join(' ')}`,
);

async function runClient(index: number): Promise<void> {
  const key = enterprise[index % enterprise.length].api_key;
  const client = index % 2 === 0 ? 'fetch' : 'agent';
  const send = client === 'fetch' ? fetchClient(service.url, key) : agentClient(service.url, key);
  const mine: string[] = [];
  let lastDone = Date.now();
  // Clients start spread over the first gap, as a fleet of integrations would.
  for (let gap = rand() * MAX_GAP_MS; Date.now() + gap < deadline; gap = rand() * MAX_GAP_MS) {
    await new Promise((done) => setTimeout(done, gap));
    const roll = rand();
    const [route, method, path, body] = ((): [string, 'GET' | 'POST', string, unknown?] => {
      if (roll < 0.3) {
        const person = pick(listed);
        return ['POST /screen (listed)', 'POST', '/screen', person.dob ? person : { name: person.name }];
      }
      if (roll < 0.6 || mine.length === 0)
        return [
          'POST /screen (unlisted)',
          'POST',
          '/screen',
          { name: faker.person.fullName(), dob: faker.date.birthdate().toISOString().slice(0, 10) },
        ];
      if (roll < 0.8) return ['GET /screens/{id}', 'GET', `/screens/${pick(mine)}`];
      if (roll < 0.87) return ['GET /screens', 'GET', '/screens?limit=20'];
      if (roll < 0.94) return ['GET /screens/pending', 'GET', '/screens/pending?limit=20'];
      return ['GET /clients', 'GET', '/clients?limit=20'];
    })();
    const idleMs = Date.now() - lastDone;
    const sent = performance.now();
    try {
      const answer = await send(method, path, body);
      outcomes.push({ route, client, ms: performance.now() - sent, status: answer.status, idleMs });
      if (method === 'POST' && answer.status === 200 && answer.body?.screen_id)
        mine.push(answer.body.screen_id);
    } catch (error) {
      outcomes.push({ route, client, ms: performance.now() - sent, idleMs, ...failureOf(error) });
    }
    lastDone = Date.now();
  }
}

function summary() {
  const failed = (kind: Outcome['failure']) => outcomes.filter((o) => o.failure === kind).length;
  return {
    requests: outcomes.length,
    resets: failed('reset'),
    '5xx': outcomes.filter((o) => (o.status ?? 0) >= 500).length,
    timeouts: failed('timeout'),
    'other failures': failed('other'),
  };
}

const progress = setInterval(() => {
  const elapsed = ((Date.now() - startedAt) / 60_000).toFixed(0);
  console.log(`  ${elapsed} min: ${JSON.stringify(summary())}, load average ${loadavg()[0].toFixed(2)}`);
}, 60_000);
const abandon = setTimeout(
  () => {
    console.error('soak: clients still running two minutes past the deadline; abandoned');
    void service.stop().finally(() => process.exit(2));
  },
  deadline - startedAt + 2 * REQUEST_TIMEOUT_MS,
);

try {
  await Promise.all(Array.from({ length: clientCount }, (_, i) => runClient(i)));
} finally {
  clearInterval(progress);
  clearTimeout(abandon);
}
const cpu = service.cpuSeconds();
await service.stop();

const answered = outcomes.filter((o) => o.status !== undefined);
const routes = [...new Set(outcomes.map((o) => o.route))].sort();
console.table(
  [...routes, 'all'].map((route) => {
    const rows = route === 'all' ? outcomes : outcomes.filter((o) => o.route === route);
    const ms = rows
      .filter((o) => o.status !== undefined)
      .map((o) => o.ms)
      .sort((a, b) => a - b);
    return {
      route,
      requests: rows.length,
      'status counts': JSON.stringify(
        Object.fromEntries(
          [...new Set(rows.map((o) => o.status ?? o.failure))].map((s) => [
            s,
            rows.filter((o) => (o.status ?? o.failure) === s).length,
          ]),
        ),
      ),
      'p50 ms': Math.round(percentile(ms, 50)),
      'p99 ms': Math.round(percentile(ms, 99)),
      'max ms': Math.round(ms.at(-1) ?? Number.NaN),
    };
  }),
);
const totals = summary();
const afterLongIdle = outcomes.filter((o) => o.idleMs >= NODE_DEFAULT_KEEP_ALIVE_MS).length;
console.log(
  `${totals.requests} requests in ${((Date.now() - startedAt) / 60_000).toFixed(1)} min (${answered.length} answered), ` +
    `${afterLongIdle} of them after the client sat idle ${NODE_DEFAULT_KEEP_ALIVE_MS / 1000} s or more; ` +
    `resets ${totals.resets}, 5xx ${totals['5xx']}, timeouts ${totals.timeouts}, other failures ${totals['other failures']}; ` +
    `service CPU ${cpu.toFixed(1)} s; load average at end ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
);
for (const o of outcomes.filter((x) => x.failure || (x.status ?? 0) >= 500).slice(0, 10))
  console.log(
    `  ${o.route} (${o.client}): ${o.status ?? o.failure} after ${Math.round(o.ms)} ms, idle ${o.idleMs} ms before: ${o.error ?? ''}`,
  );
const ok = totals.resets === 0 && totals['5xx'] === 0 && totals['other failures'] === 0;
const slow = totals.timeouts
  ? ` (${totals.timeouts} had no answer within ${REQUEST_TIMEOUT_MS / 1000} s)`
  : '';
console.log(ok ? `OK: no connection reset, no 5xx, no request failed${slow}.` : 'FAILED: see above.');
process.exitCode = ok ? 0 : 1;
