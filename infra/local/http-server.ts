import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import pLimit from 'p-limit';
import { consoleResponse, isConsolePath } from '../../lib/api-docs/console-files.ts';
import { localSettings } from '../../lib/common/config.ts';
import { PayloadTooLargeError } from '../../lib/common/errors.ts';
import { logger } from '../../lib/common/log.ts';
import { fallbackRoute, type RouteDefinition, routes } from '../../lib/contract/routes.ts';
import { MAX_BODY_BYTES } from '../../lib/http/body-limit.ts';
import { errorResponse } from '../../lib/http/error-response.ts';
import { requestIdFor } from '../../lib/http/request-id.ts';
import { lookupRoute } from '../../lib/http/route-match.ts';
import { localContext } from './lambda-context.ts';

const repoRoot = resolve(import.meta.dirname, '../..');

type HttpLambda = (
  event: APIGatewayProxyEventV2,
  context: unknown,
) => Promise<APIGatewayProxyStructuredResultV2>;

/** Serves a `kind: 'stream'` route (response-streaming Function URL stand-in, see stream-server.ts). */
export type StreamRouteServer = (
  route: RouteDefinition,
  event: APIGatewayProxyEventV2,
  res: ServerResponse,
) => Promise<void>;

async function loadHandler(entry: string): Promise<HttpLambda> {
  const module = (await import(pathToFileURL(resolve(repoRoot, entry)).href)) as { handler: HttpLambda };
  return module.handler;
}

/** Reads the body, refusing more than the 1 MB limit without buffering the rest. */
function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolveBody, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(new PayloadTooLargeError(`Request body exceeds the limit of ${MAX_BODY_BYTES} bytes (1 MB)`));
        req.pause();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolveBody(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/**
 * The path and query of a request target, read as written. Not through `new URL(target, base)`:
 * that reads `//host/path` as another host's `/path` (so `//localhost/me` would be served as
 * `/me`) and throws on targets such as `//[`. API Gateway takes the path literally; so does this,
 * and a path no route has is a 404.
 */
export function requestTarget(target: string | undefined): { path: string; rawQuery: string } {
  const raw = target ?? '/';
  const mark = raw.indexOf('?');
  return { path: mark < 0 ? raw : raw.slice(0, mark), rawQuery: mark < 0 ? '' : raw.slice(mark + 1) };
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The body as API Gateway hands it on: text when it is UTF-8, otherwise base64 with
 * `isBase64Encoded` (the request pipeline then refuses it with 400 rather than reading it lossily).
 */
function eventBody(body: Buffer | string): { body?: string; isBase64Encoded: boolean } {
  if (body.length === 0) return { body: undefined, isBase64Encoded: false };
  if (typeof body === 'string') return { body, isBase64Encoded: false };
  try {
    return { body: strictUtf8.decode(body), isBase64Encoded: false };
  } catch {
    return { body: body.toString('base64'), isBase64Encoded: true };
  }
}

/** Builds the API Gateway HTTP API payload v2 event a deployed handler would receive. */
export function toApiGatewayEvent(
  req: IncomingMessage,
  body: Buffer | string,
  routeKey: string,
  pathParameters: Record<string, string> | undefined,
): APIGatewayProxyEventV2 {
  const { path, rawQuery } = requestTarget(req.url);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(',') : value;
  }
  const query: Record<string, string> = {};
  for (const [name, value] of new URLSearchParams(rawQuery))
    query[name] = name in query ? `${query[name]},${value}` : value;
  const now = new Date();
  return {
    version: '2.0',
    routeKey,
    rawPath: path,
    rawQueryString: rawQuery,
    headers,
    queryStringParameters: Object.keys(query).length > 0 ? query : undefined,
    pathParameters,
    ...eventBody(body),
    requestContext: {
      accountId: 'local',
      apiId: 'local',
      domainName: headers.host ?? 'localhost',
      domainPrefix: 'localhost',
      http: {
        method: (req.method ?? 'GET').toUpperCase(),
        path,
        protocol: `HTTP/${req.httpVersion}`,
        sourceIp: req.socket.remoteAddress ?? '127.0.0.1',
        userAgent: headers['user-agent'] ?? '',
      },
      requestId: randomUUID(),
      routeKey,
      stage: '$default',
      time: now.toUTCString(),
      timeEpoch: now.getTime(),
    },
  };
}

/** An answer the local server gives itself, before any handler ran, still names its request. */
function localError(error: unknown, req: IncomingMessage): APIGatewayProxyStructuredResultV2 {
  const requestId = requestIdFor(req.headers);
  const result = errorResponse(error, requestId, logger.child({ requestId }), requestTarget(req.url).path);
  return { ...result, headers: { ...result.headers, 'x-request-id': requestId } };
}

function send(res: ServerResponse, result: APIGatewayProxyStructuredResultV2): void {
  res.writeHead(result.statusCode ?? 200, result.headers as Record<string, string>);
  // API Gateway decodes a binary body (the reference page's icons) before sending it; so does this.
  res.end(result.isBase64Encoded ? Buffer.from(result.body ?? '', 'base64') : (result.body ?? ''));
}

/**
 * How long an idle keep-alive connection stays open. Node's default, 5 s, closes a connection a
 * client may be reusing at that very moment: a client polling every few seconds, or one that
 * paused between requests, then had its next request reset (ECONNRESET). Held open far longer
 * than clients keep idle connections (undici, Node's fetch, keeps them 4 s unless the server's
 * `Keep-Alive: timeout=` says more), the server is never the side that closes under a request.
 * The header timeout must exceed it (Node's rule), so a slow request's headers still arrive.
 */
const KEEP_ALIVE = { keepAliveTimeout: 65_000, headersTimeout: 66_000 };

/**
 * The local stand-in for API Gateway: every manifest route, served through the very handlers
 * that are deployed as Lambdas, with payload-v2 events built from the request; and, standing in
 * for the distribution's S3 behaviour, the console's files under /console.
 */
export async function createHttpServer(
  options: { streamServer?: StreamRouteServer; concurrency?: number } = {},
): Promise<Server> {
  // Invocations in flight at once: more wait for a slot, and their function's time (its context,
  // its timeout) starts when they get one, as a Lambda's starts when it is invoked. On AWS each
  // invocation has its own CPU and DynamoDB takes any number of writes at once; here one machine
  // and one DynamoDB Local (which takes writes one at a time, behind a lock) serve them all, so
  // hundreds started together would share both until every one of them ran out of time.
  const invocation = pLimit(options.concurrency ?? localSettings().concurrency);
  const handlers = new Map<string, HttpLambda>();
  for (const route of routes)
    if (route.kind === 'http') handlers.set(route.id, await loadHandler(route.entry));
  const fallback = await loadHandler(fallbackRoute.entry);

  return createServer(KEEP_ALIVE, async (req, res) => {
    try {
      const method = (req.method ?? 'GET').toUpperCase();
      const { path } = requestTarget(req.url);
      // The console's files, as CloudFront serves them from S3 on AWS (console-site.ts).
      if ((method === 'GET' || method === 'HEAD') && isConsolePath(path)) {
        const file = await consoleResponse(path, req.headers['accept-encoding']);
        res.writeHead(file.status, file.headers);
        res.end(method === 'HEAD' ? undefined : file.body);
        return;
      }
      const lookup = lookupRoute(method, path);
      let body: Buffer;
      try {
        body = await readBody(req);
      } catch (error) {
        res.setHeader('connection', 'close');
        send(res, localError(error, req));
        return;
      }
      // CloudFront sends every method of a stream route's path to its Function URL, which answers
      // a wrong method itself (DELETE /screens/export is its 405, not a screen `export`); the
      // local server routes the same way.
      const streamRoute = routes.find((r) => r.kind === 'stream' && r.path === path);
      if (
        streamRoute &&
        options.streamServer &&
        (lookup.kind !== 'found' || lookup.route.kind !== 'stream')
      ) {
        await options.streamServer(streamRoute, toApiGatewayEvent(req, body, '$default', undefined), res);
        return;
      }
      if (lookup.kind !== 'found') {
        send(
          res,
          await fallback(toApiGatewayEvent(req, body, '$default', undefined), localContext('fallback')),
        );
        return;
      }
      const { route, pathParameters } = lookup;
      const event = toApiGatewayEvent(req, body, `${route.method} ${route.path}`, pathParameters);
      if (route.kind === 'stream') {
        if (!options.streamServer) throw new Error(`no stream server for ${route.id}`);
        await options.streamServer(route, event, res);
        return;
      }
      const handler = handlers.get(route.id)!;
      send(res, await invocation(() => handler(event, localContext(route.id))));
    } catch (error) {
      if (!res.headersSent) send(res, localError(error, req));
      else res.end();
    }
  });
}
