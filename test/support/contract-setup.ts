import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach } from 'vitest';
import type { ContractCheck, contractOf } from './contract.ts';
import { inProcessApps } from './in-process-apps.ts';

/**
 * Contract tests of every HTTP test (a setup file of the embedded project, vitest.config.ts): every
 * response a test receives from the local server through `fetch` is checked against the OpenAPI
 * document (test/support/contract.ts), and a test that received a status the document does not
 * declare, or a body or event that does not match its schema, fails with the problems named.
 * Requests to anything but a local address (and paths no operation takes) pass unchecked.
 */

/**
 * The checker is built on the first local response: building it (the document and its compiled
 * schemas) costs a second or more per test file, and most test files never call the server.
 */
let contractBuilt: Promise<ReturnType<typeof contractOf>> | undefined;
const contract = () => {
  contractBuilt ??= import('./contract.ts').then(({ contractOf: build }) => build());
  return contractBuilt;
};
const problems: string[] = [];
const pending = new Set<Promise<void>>();
/**
 * The platform's fetch, kept across files: with `isolate: false` (the in-process project) this
 * setup file runs again before each file, and wraps the platform's fetch, not the last wrapper.
 */
const ORIGINAL_FETCH = Symbol.for('screening.test.originalFetch');
const saved = globalThis as { [ORIGINAL_FETCH]?: typeof fetch };
saved[ORIGINAL_FETCH] ??= globalThis.fetch;
const originalFetch = saved[ORIGINAL_FETCH];

/**
 * With CONTRACT_COVERAGE_DIR set, each checked response's operation and status is appended to a
 * file there, one per worker process; scripts/contract-coverage.ts compares them with the document.
 */
const coverageFile = process.env.CONTRACT_COVERAGE_DIR
  ? join(process.env.CONTRACT_COVERAGE_DIR, `${process.pid}.txt`)
  : undefined;

function record({ operation, problems: found }: ContractCheck, status: number) {
  problems.push(...found);
  if (coverageFile && operation) appendFileSync(coverageFile, `${operation} ${status}\n`);
}

const isLocal = (url: URL) => url.hostname === '127.0.0.1' || url.hostname === 'localhost';

function urlOf(input: string | URL | Request): string {
  if (typeof input === 'string') return input;
  return input instanceof URL ? input.href : input.url;
}

/** The SSE body passed through as the test reads it, each event checked on the way. */
function checkedEventStream(
  checks: ReturnType<typeof contractOf>,
  response: Response,
  method: string,
  url: string,
): Response {
  const checker = checks.eventChecker(method, url, (problem) => problems.push(problem));
  if (!checker || !response.body) return response;
  const decoder = new TextDecoder();
  const body = response.body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        checker.feed(decoder.decode(chunk, { stream: true }));
        controller.enqueue(chunk);
      },
    }),
  );
  return new Response(body, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}

/**
 * Checks a response a test received without `fetch` (a raw node:http request) the same way: its
 * problems fail the test like those of a fetched response.
 */
export function checkReceived(method: string, url: string, status: number, headers: Headers, body: string) {
  const checked = contract()
    .then((checks) => record(checks.check(method, url, status, headers, body), status))
    .finally(() => pending.delete(checked));
  pending.add(checked);
}

/** An in-process stack's origin (test/support/in-process-stack.ts) takes the request without a socket. */
function inProcessApp(url: string) {
  return URL.canParse(url) ? inProcessApps().get(new URL(url).origin) : undefined;
}

globalThis.fetch = async (input: string | URL | Request, init?: RequestInit) => {
  const url = urlOf(input);
  const app = inProcessApp(url);
  // Started before the request, so that building the checker overlaps the server's work.
  const checksReady = app || (URL.canParse(url) && isLocal(new URL(url))) ? contract() : undefined;
  const response = app ? await app(new Request(input, init)) : await originalFetch(input, init);
  if (!checksReady) return response;
  const method = init?.method ?? (input instanceof Request ? input.method : 'GET');
  const checks = await checksReady;
  const contentType = response.headers.get('content-type');
  if (response.status === 200 && contentType?.startsWith('text/event-stream')) {
    record(checks.check(method, url, response.status, response.headers, ''), response.status);
    return checkedEventStream(checks, response, method, url);
  }
  const checked = response
    .clone()
    .text()
    .then((body) => {
      record(checks.check(method, url, response.status, response.headers, body), response.status);
    })
    .catch(() => {
      // The test aborted the request: it saw no body, and there is none to check.
    })
    .finally(() => pending.delete(checked));
  pending.add(checked);
  return response;
};

async function failOnBrokenContract() {
  await Promise.all([...pending]);
  if (problems.length === 0) return;
  const found = problems.splice(0);
  throw new Error(`Responses that break the OpenAPI document (docs/openapi.json):\n${found.join('\n')}`);
}

afterEach(failOnBrokenContract);
afterAll(failOnBrokenContract);
