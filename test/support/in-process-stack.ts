import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import pLimit from 'p-limit';
import { startLocalAuditChain } from '../../infra/local/audit-chain.ts';
import { seedDemoTenants } from '../../infra/local/demo-tenants.ts';
import { deleteTable, ensureTable } from '../../infra/local/dynamo.ts';
import { type StreamRouteServer, toApiGatewayEvent } from '../../infra/local/http-server.ts';
import { localContext } from '../../infra/local/lambda-context.ts';
import { startLocalQueue } from '../../infra/local/queue.ts';
import { startLocalScheduler } from '../../infra/local/scheduler.ts';
import type { LocalStack } from '../../infra/local/stack.ts';
import { createStreamServer } from '../../infra/local/stream-server.ts';
import { localWebhookSettings, startWebhookQueue } from '../../infra/local/webhook-queue.ts';
import { consoleResponse, isConsolePath } from '../../lib/api-docs/console-files.ts';
import { localSettings, readConfig, setEnvironment } from '../../lib/common/config.ts';
import { PayloadTooLargeError } from '../../lib/common/errors.ts';
import { logger } from '../../lib/common/log.ts';
import { markReady } from '../../lib/common/readiness.ts';
import { fallbackRoute, type RouteDefinition, routes } from '../../lib/contract/routes.ts';
import { MAX_BODY_BYTES } from '../../lib/http/body-limit.ts';
import { errorResponse } from '../../lib/http/error-response.ts';
import { requestIdFor } from '../../lib/http/request-id.ts';
import { lookupRoute } from '../../lib/http/route-match.ts';
import { getServices, resetServices } from '../../lib/runtime/services.ts';
import { liveWatchlistsOf } from '../../lib/sync/live-watchlists.ts';
import { inProcessApps } from './in-process-apps.ts';

/**
 * The API in-process, as Hono's `app.request()` serves one: a `Request` goes through the same
 * dispatch as the local server (infra/local/http-server.ts: the console's files, the 1 MB body
 * limit, the route lookup, a stream path's Function URL, the fallback) into the very handlers
 * that are deployed (middy, auth, validation), and their result comes back as a `Response`,
 * with no socket and no server. test/support/contract-setup.ts sends a test's `fetch` to a URL
 * under the stack's origin here, and checks the response against the OpenAPI document as it
 * checks a served one.
 *
 * What a file pays for once per worker (the test project runs with `isolate: false`, see
 * vitest.config.ts): importing the handlers, and indexing the watchlists (lib/sync/live-watchlists.ts
 * keeps them across stacks). What each file gets afresh: its table on the run's DynamoDB Local,
 * the demo tenants, the queues, the audit chain writer and the scheduler.
 */

const repoRoot = resolve(import.meta.dirname, '../..');

type HttpLambda = (
  event: APIGatewayProxyEventV2,
  context: unknown,
) => Promise<APIGatewayProxyStructuredResultV2>;

interface Dispatch {
  handlers: Map<string, HttpLambda>;
  fallback: HttpLambda;
  streamServer: StreamRouteServer;
}

/** The handlers, imported once per worker. */
let dispatchLoaded: Promise<Dispatch> | undefined;
function loadDispatch(): Promise<Dispatch> {
  const load = async (entry: string) =>
    ((await import(pathToFileURL(resolve(repoRoot, entry)).href)) as { handler: HttpLambda }).handler;
  dispatchLoaded ??= (async () => {
    const handlers = new Map<string, HttpLambda>();
    for (const route of routes) if (route.kind === 'http') handlers.set(route.id, await load(route.entry));
    return { handlers, fallback: await load(fallbackRoute.entry), streamServer: await createStreamServer() };
  })();
  return dispatchLoaded;
}

/** The parts of a node:http request the event builder reads (infra/local/http-server.ts). */
function incoming(method: string, target: string, headers: Record<string, string>): IncomingMessage {
  return {
    method,
    url: target,
    headers,
    httpVersion: '1.1',
    socket: { remoteAddress: '127.0.0.1' },
  } as unknown as IncomingMessage;
}

const NO_BODY_STATUSES = new Set([101, 204, 205, 304]);

function toResponse(method: string, result: APIGatewayProxyStructuredResultV2): Response {
  const status = result.statusCode ?? 200;
  const headers = new Headers();
  for (const [name, value] of Object.entries(result.headers ?? {})) headers.set(name, String(value));
  for (const cookie of result.cookies ?? []) headers.append('set-cookie', cookie);
  const bytes = result.isBase64Encoded ? Buffer.from(result.body ?? '', 'base64') : (result.body ?? '');
  const body = method === 'HEAD' || NO_BODY_STATUSES.has(status) ? null : bytes;
  return new Response(body, { status, headers });
}

/**
 * The node:http response a stream route's handler writes to (infra/local/stream-server.ts's
 * LocalResponseStream), turned into a `Response` whose body is read as it is written. The
 * request's abort signal, or the reader cancelling the body, is the client leaving: the
 * response closes as a dropped connection's does.
 */
class StreamedResponse extends EventEmitter {
  headersSent = false;
  destroyed = false;
  writableEnded = false;
  writableFinished = false;
  private controller!: ReadableStreamDefaultController<Uint8Array>;
  private readonly body: ReadableStream<Uint8Array>;
  readonly head: Promise<Response>;
  private settleHead!: (response: Response) => void;

  constructor(
    private readonly method: string,
    signal: AbortSignal | undefined,
  ) {
    super();
    this.body = new ReadableStream<Uint8Array>({
      start: (controller) => {
        this.controller = controller;
      },
      cancel: () => this.leave(),
    });
    this.head = new Promise((settle) => {
      this.settleHead = settle;
    });
    signal?.addEventListener('abort', () => this.leave(), { once: true });
  }

  private leave(): void {
    if (this.destroyed || this.writableFinished) return;
    this.destroyed = true;
    try {
      this.controller.error(Object.assign(new Error('client disconnected'), { code: 'ECONNRESET' }));
    } catch {
      // Already closed.
    }
    this.emit('close');
  }

  writeHead(status: number, headers: Record<string, string | string[]> = {}): this {
    this.headersSent = true;
    const received = new Headers();
    for (const [name, value] of Object.entries(headers))
      for (const one of Array.isArray(value) ? value : [value]) received.append(name, one);
    const body = this.method === 'HEAD' || NO_BODY_STATUSES.has(status) ? null : this.body;
    this.settleHead(new Response(body, { status, headers: received }));
    return this;
  }

  flushHeaders(): void {}

  write(chunk: Uint8Array | string, callback?: (error?: Error | null) => void): boolean {
    if (!this.destroyed) this.controller.enqueue(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
    callback?.(null);
    return true;
  }

  end(chunk?: Uint8Array | string | (() => void), callback?: () => void): this {
    const done = typeof chunk === 'function' ? chunk : callback;
    if (chunk !== undefined && typeof chunk !== 'function') this.write(chunk);
    if (!this.headersSent) this.writeHead(200);
    if (!this.writableEnded) {
      this.writableEnded = true;
      if (!this.destroyed) this.controller.close();
      this.writableFinished = true;
      this.emit('finish');
      this.emit('close');
    }
    done?.();
    return this;
  }
}

/** An answer the dispatch gives itself, before any handler ran (http-server.ts `localError`). */
function dispatchError(error: unknown, headers: Record<string, string>, path: string): Response {
  const requestId = requestIdFor(headers);
  const result = errorResponse(error, requestId, logger.child({ requestId }), path);
  return toResponse('GET', { ...result, headers: { ...result.headers, 'x-request-id': requestId } });
}

/** `app.request()`: the request dispatched as infra/local/http-server.ts dispatches a served one. */
async function dispatch(
  request: Request,
  origin: string,
  invocation: ReturnType<typeof pLimit>,
): Promise<Response> {
  const { handlers, fallback, streamServer } = await loadDispatch();
  const method = request.method.toUpperCase();
  const target = request.url.slice(origin.length) || '/';
  const mark = target.indexOf('?');
  const path = mark < 0 ? target : target.slice(0, mark);
  const headers: Record<string, string> = { host: new URL(origin).host };
  for (const [name, value] of request.headers) headers[name.toLowerCase()] = value;
  if ((method === 'GET' || method === 'HEAD') && isConsolePath(path)) {
    const file = await consoleResponse(path, headers['accept-encoding']);
    return new Response(method === 'HEAD' ? null : new Uint8Array(file.body), {
      status: file.status,
      headers: file.headers as Record<string, string>,
    });
  }
  const body = Buffer.from(await request.arrayBuffer());
  if (body.length > 0) headers['content-length'] = String(body.length);
  if (body.length > MAX_BODY_BYTES) {
    const refused = dispatchError(
      new PayloadTooLargeError(`Request body exceeds the limit of ${MAX_BODY_BYTES} bytes (1 MB)`),
      headers,
      path,
    );
    refused.headers.set('connection', 'close');
    return refused;
  }
  const req = incoming(method, target, headers);
  const lookup = lookupRoute(method, path);
  const streamRoute = routes.find((r) => r.kind === 'stream' && r.path === path);
  const stream = (route: RouteDefinition, event: APIGatewayProxyEventV2) => {
    const res = new StreamedResponse(method, request.signal);
    void streamServer(route, event, res as unknown as ServerResponse).catch((error) => {
      if (!res.headersSent) res.writeHead(500).end();
      logger.error({ err: error }, 'in-process stream failed');
    });
    return res.head;
  };
  try {
    if (streamRoute && (lookup.kind !== 'found' || lookup.route.kind !== 'stream'))
      return await stream(streamRoute, toApiGatewayEvent(req, body, '$default', undefined));
    if (lookup.kind !== 'found')
      return toResponse(
        method,
        await fallback(toApiGatewayEvent(req, body, '$default', undefined), localContext('fallback')),
      );
    const { route, pathParameters } = lookup;
    const event = toApiGatewayEvent(req, body, `${route.method} ${route.path}`, pathParameters);
    if (route.kind === 'stream') return await stream(route, event);
    const handler = handlers.get(route.id)!;
    return toResponse(method, await invocation(() => handler(event, localContext(route.id))));
  } catch (error) {
    return dispatchError(error, headers, path);
  }
}

let stacks = 0;

/**
 * The service in-process on a fresh table of the run's DynamoDB Local: the same `LocalStack` a
 * started one is (demo keys, queues, scheduler, audit chain), whose `url` is an origin no socket
 * listens on (`*.in-process.test`, a name that never resolves): `fetch` to it is dispatched here.
 */
export async function startInProcessStack(options: { batchWorkerEntry?: string } = {}): Promise<LocalStack> {
  const sharedDynamo = localSettings().sharedDynamodbLocal;
  if (!sharedDynamo) throw new Error('no DynamoDB Local for the run (test/support/dynamodb-local-env.ts)');
  const dispatchReady = loadDispatch();
  const tableName = `local-${randomUUID().slice(0, 8)}`;
  await ensureTable(sharedDynamo, tableName);
  setEnvironment({ TABLE_NAME: tableName, DYNAMODB_ENDPOINT: sharedDynamo });
  const batchQueue = await startLocalQueue({ workerEntry: options.batchWorkerEntry });
  setEnvironment({ SQS_ENDPOINT: batchQueue.endpoint, BATCH_QUEUE_URL: batchQueue.queueUrl });
  localWebhookSettings(null);
  const webhookQueue = await startWebhookQueue(
    batchQueue.endpoint,
    readConfig().WEBHOOK_RETRY_DELAYS_SECONDS,
  );
  const anchorDir = mkdtempSync(join(tmpdir(), 'audit-anchors-'));
  setEnvironment({ AUDIT_ANCHOR_DIR: anchorDir });
  resetServices();
  const { table, config } = getServices();
  const auditChain = startLocalAuditChain();
  const demoKeys = await seedDemoTenants(table);
  const scheduler = await startLocalScheduler();
  // Indexed once per worker; a screen never waits for it.
  await liveWatchlistsOf(config).matcher();
  markReady();
  await dispatchReady;

  stacks += 1;
  const origin = `http://api-${process.pid}-${stacks}.in-process.test`;
  const invocation = pLimit(localSettings().concurrency);
  inProcessApps().set(origin, (request) => dispatch(request, origin, invocation));
  return {
    url: origin,
    demoKeys,
    batchQueue,
    webhookQueue,
    scheduler,
    auditChain,
    ready: Promise.resolve(),
    close: async () => {
      inProcessApps().delete(origin);
      scheduler.close();
      await webhookQueue.close();
      await batchQueue.close();
      setEnvironment({ SQS_ENDPOINT: undefined, BATCH_QUEUE_URL: undefined });
      await auditChain.stop();
      setEnvironment({ AUDIT_ANCHOR_DIR: undefined });
      rmSync(anchorDir, { recursive: true, force: true });
      await deleteTable(sharedDynamo, tableName);
      setEnvironment({ DYNAMODB_ENDPOINT: undefined });
    },
  };
}
