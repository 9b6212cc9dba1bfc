import { afterAll, beforeAll } from 'vitest';
import type { DemoKey } from '../../infra/local/demo-tenants.ts';
import { type LocalStack, startLocalStack } from '../../infra/local/stack.ts';
import { startInProcessStack } from './in-process-stack.ts';

/** What a caller of the API sees: the status and the parsed JSON body. */
export interface ApiResponse {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: black-box tests read arbitrary JSON bodies
  body: any;
}

/**
 * A tiny fetch wrapper for black-box tests of the screening endpoints. A read of the audit trail
 * (`/audit...`) first lets the stack's chain writer link every entry written so far: the chain
 * lags its actions by design (lib/audit/chain-writer.ts), and a test reads the trail as it stands
 * once it has caught up. Tests of the lag itself read the store.
 */
export function apiClient(stack: LocalStack) {
  const call = async (
    method: string,
    path: string,
    key: string | undefined,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<ApiResponse> => {
    if (method === 'GET' && path.startsWith('/audit')) await stack.auditChain.settle();
    // The tenant's request rate (a token bucket: a plan's burst, then its steady rate) may answer
    // 429 `rate_limited` to a test that sends a burst; like a client, this one waits as the
    // Retry-After says and sends again. Tests of the rate itself use fetch (test/api/fair-use.test.ts).
    for (let attempt = 1; ; attempt += 1) {
      const response = await fetch(`${stack.url}${path}`, {
        method,
        headers: { ...(key ? { 'x-api-key': key } : {}), 'content-type': 'application/json', ...headers },
        body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
      });
      const text = await response.text();
      const parsed = text ? JSON.parse(text) : undefined;
      const rateLimited = response.status === 429 && JSON.stringify(parsed ?? {}).includes('rate_limited');
      if (!rateLimited || attempt >= 20) return { status: response.status, body: parsed };
      const wait = Number(response.headers.get('retry-after') ?? 1);
      await new Promise((resolve) => setTimeout(resolve, 1000 * Math.min(Math.max(wait, 0.1), 5)));
    }
  };
  return {
    get: (path: string, key?: string) => call('GET', path, key),
    post: (path: string, key: string | undefined, body?: unknown, headers?: Record<string, string>) =>
      call('POST', path, key, body, headers),
    patch: (path: string, key: string | undefined, body?: unknown) => call('PATCH', path, key, body),
    delete: (path: string, key?: string) => call('DELETE', path, key),
  };
}

/** The demo key of a tenant's user in a role (the n-th such user, from 0). */
export function demoKey(stack: LocalStack, tenantId: string, role: DemoKey['role'], nth = 0): DemoKey {
  const key = stack.demoKeys.filter((k) => k.tenant_id === tenantId && k.role === role)[nth];
  if (!key) throw new Error(`no demo ${role} #${nth} in ${tenantId}`);
  return key;
}

/** A name no list holds, unique per process, so screens of it never hit the rescreen window. */
let made = 0;
const SYLLABLES = ['ka', 'lo', 'mir', 'tesh', 'va', 'dun', 'pel', 'roz', 'qui', 'bre'];
export function madeUpName(): string {
  made += 1;
  const spelled = [...String(made + 1000 * process.pid)].map((digit) => SYLLABLES[Number(digit)]).join('');
  return `Hjordis Zq${spelled} Quillonby`;
}

type UsedStack = { stack: LocalStack; api: ReturnType<typeof apiClient> };

function useStack(start: () => Promise<LocalStack>): UsedStack {
  const local = {} as UsedStack;
  beforeAll(async () => {
    local.stack = await start();
    local.api = apiClient(local.stack);
    // The first in-process stack of a worker imports every handler and indexes the watchlists:
    // on a busy shared machine that took over a minute.
  }, 120_000);
  afterAll(async () => local.stack?.close());
  return local;
}

/**
 * The service in-process (test/support/in-process-stack.ts) on a fresh table, set up before the
 * file's tests and closed after them, with an API client: `const local = useLocalStack();` then
 * `local.api.get(...)`, `local.stack`, or `fetch(`${local.stack.url}/me`)`. Every request goes
 * through the deployed handlers and the OpenAPI check, without a socket: most API tests.
 */
export function useLocalStack(options: { batchWorkerEntry?: string } = {}): UsedStack {
  return useStack(() => startInProcessStack(options));
}

/**
 * The whole local stack (infra/local/stack.ts) served on a loopback port, for the journeys where a
 * real process and socket matter: streams read as a client reads them, dropped connections, the
 * browser, host names, the start-up (docs/testing.md lists them).
 */
export function useLocalServer(): UsedStack {
  return useStack(() => startLocalStack({ dataDir: null }));
}
