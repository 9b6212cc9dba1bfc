import type { ServerResponse } from 'node:http';
import { resolve } from 'node:path';
import { Writable } from 'node:stream';
import { pathToFileURL } from 'node:url';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { logger } from '../../lib/common/log.ts';
import { routes } from '../../lib/contract/routes.ts';
import { problemBody } from '../../lib/http/error-response.ts';
import type { StreamRouteServer } from './http-server.ts';
import { localContext } from './lambda-context.ts';

const repoRoot = resolve(import.meta.dirname, '../..');

/** Function URLs allow 15 minutes; the deployed stream functions get 10 (batch-pipeline.ts). */
const STREAM_TIMEOUT_MS = 10 * 60_000;

type StreamingLambda = (
  event: APIGatewayProxyEventV2,
  responseStream: Writable,
  context: Context,
) => Promise<void>;

interface ResponseMetadata {
  statusCode?: number;
  headers?: Record<string, string | number | boolean>;
  cookies?: string[];
}

/**
 * The response stream Lambda hands a streaming handler, writing straight to the node:http
 * response: every write reaches the client as it happens (no buffering, unlike lambda-stream).
 * A client that goes away destroys the stream, which ends the handler's pipeline the way a
 * closed Function URL connection does.
 *
 * The client can go at any moment: while the key is still being checked (nothing has piped into
 * the stream yet, so nothing listens for its 'error'), mid-stream, or after the last write. An
 * 'error' with no listener is thrown by Node and ends the whole process, every tenant's requests
 * with it; so the stream always listens itself, and a client leaving ends only its own request.
 */
export class LocalResponseStream extends Writable {
  constructor(private readonly res: ServerResponse) {
    super();
    this.on('error', (error: NodeJS.ErrnoException) => {
      // The handler's pipeline (when it has one) receives the same error and stops its work.
      if (error.code !== 'ECONNRESET') logger.warn({ err: error }, 'response stream failed');
    });
    // A write to a socket the client closed can fail on the response itself too.
    res.on('error', (error) => logger.debug({ err: error }, 'response to a client that left'));
    res.on('close', () => {
      if (!res.writableFinished)
        this.destroy(Object.assign(new Error('client disconnected'), { code: 'ECONNRESET' }));
    });
  }

  /** HttpResponseStream.from: the status line and headers, sent at once (the "prelude"). */
  sendPrelude(metadata: ResponseMetadata): void {
    if (this.res.headersSent || this.res.destroyed) return;
    const headers: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(metadata.headers ?? {})) headers[name] = String(value);
    if (metadata.cookies?.length) headers['set-cookie'] = metadata.cookies;
    this.res.writeHead(metadata.statusCode ?? 200, headers);
    this.res.flushHeaders();
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    // A stream written without a prelude is what Lambda sends as application/octet-stream.
    if (!this.res.headersSent) this.sendPrelude({ headers: { 'content-type': 'application/octet-stream' } });
    if (chunk.length === 0) {
      callback();
      return;
    }
    this.res.write(chunk, (error) => callback(error ?? null));
  }

  override _final(callback: (error?: Error | null) => void): void {
    if (!this.res.headersSent) this.sendPrelude({ headers: { 'content-type': 'application/octet-stream' } });
    this.res.end(() => callback());
  }
}

/**
 * The part of the Lambda Node.js runtime's `awslambda` global that response-streaming handlers
 * use (middy's `streamifyResponse: true` calls it when the handler module loads), so the
 * deployed handler runs unchanged on the local server.
 */
export function installAwsLambdaGlobal(): void {
  // The AWS SDK (lambda-invoke-store) creates an empty `awslambda` object on import: add to it.
  const runtime = globalThis as { awslambda?: Record<string, unknown> };
  runtime.awslambda ??= {};
  runtime.awslambda.streamifyResponse ??= <T>(handler: T): T => handler;
  runtime.awslambda.HttpResponseStream ??= {
    from(stream: Writable, metadata: ResponseMetadata): Writable {
      if (stream instanceof LocalResponseStream) stream.sendPrelude(metadata);
      return stream;
    },
  };
}

/**
 * Serves the manifest's `kind: 'stream'` routes for infra/local/http-server.ts: the stand-in for
 * a Lambda Function URL with InvokeMode RESPONSE_STREAM. Requests arrive as the same payload-v2
 * events a Function URL sends.
 */
export async function createStreamServer(): Promise<StreamRouteServer> {
  installAwsLambdaGlobal();
  const handlers = new Map<string, StreamingLambda>();
  for (const route of routes) {
    if (route.kind !== 'stream') continue;
    const module = (await import(pathToFileURL(resolve(repoRoot, route.entry)).href)) as {
      handler: StreamingLambda;
    };
    handlers.set(route.id, module.handler);
  }

  return async (route, event, res) => {
    const handler = handlers.get(route.id);
    if (!handler) throw new Error(`no streaming handler for ${route.id}`);
    const responseStream = new LocalResponseStream(res);
    try {
      await handler(event, responseStream, localContext(route.id, STREAM_TIMEOUT_MS));
    } catch (error) {
      if (responseStream.destroyed && res.destroyed) return; // the client left; the work goes on
      logger.error({ err: error, route: route.id }, 'streaming handler failed');
      if (!res.headersSent) {
        res.writeHead(500, { 'content-type': 'application/json; charset=utf-8' });
        res.end(JSON.stringify(problemBody(500, 'internal_error', 'Internal error', event.rawPath)));
        return;
      }
    } finally {
      if (!res.writableEnded) res.end();
    }
  };
}
