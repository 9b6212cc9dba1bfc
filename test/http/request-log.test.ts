import type { Context } from 'aws-lambda';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { logger } from '../../lib/common/log.ts';
import { pipelineOf } from '../../lib/http/handler.ts';
import type { Services } from '../../lib/ports.ts';

/** Every log line of a request carries its request id and Lambda's own (docs/operations.md#log-lines). */

type Line = Record<string, unknown> & { msg: string };
// pino writes each line to the stream held under its `pino.stream` symbol: the test holds it instead.
const streamSym = Object.getOwnPropertySymbols(logger).find((s) => s.description === 'pino.stream') as symbol;
const holder = logger as unknown as Record<symbol, unknown>;
let lines: Line[];
let stream: unknown;
let level: string;

beforeEach(() => {
  lines = [];
  stream = holder[streamSym];
  level = logger.level;
  holder[streamSym] = { write: (line: string) => lines.push(JSON.parse(line) as Line) };
  logger.level = 'info';
});
afterEach(() => {
  holder[streamSym] = stream;
  logger.level = level;
});

// /health authenticates nobody and reads no store: the pipeline with no adapters is enough.
const { httpHandler } = pipelineOf(() => ({}) as Services);
const event = (requestId: string) => ({
  version: '2.0',
  routeKey: 'GET /health',
  rawPath: '/health',
  rawQueryString: '',
  headers: { 'x-request-id': requestId },
  isBase64Encoded: false,
  requestContext: { requestId: 'apigw-id', http: { method: 'GET', path: '/health' } },
});
const context = { awsRequestId: 'lambda-invocation-1' } as Context;
const health = { status: 'ok' as const, version: '1.5.0', timestamp: '2026-11-28T00:00:00+00:00' };
type Invoke = (e: ReturnType<typeof event>, c: Context) => Promise<{ statusCode: number }>;

describe('log lines of a request', () => {
  it('every line, the pipeline’s and the module logger’s deep in lib/, carries the request id and Lambda’s', async () => {
    const handler = httpHandler('health', async () => {
      logger.info({ step: 'use case' }, 'from lib/');
      await new Promise((resolve) => setTimeout(resolve, 5));
      logger.info({ step: 'after an await' }, 'from lib/');
      return { body: health };
    }) as unknown as Invoke;

    const response = await handler(event('req-log-1'), context);

    expect(response.statusCode).toBe(200);
    expect(lines.map((l) => l.msg)).toEqual(['from lib/', 'from lib/', 'request']);
    for (const line of lines) {
      expect(line, line.msg).toMatchObject({ requestId: 'req-log-1', awsRequestId: 'lambda-invocation-1' });
    }
  });

  it('so does the 500’s line, and two requests at once never swap ids', async () => {
    const handler = httpHandler('health', async (request) => {
      await new Promise((resolve) => setTimeout(resolve, request.requestId === 'req-a' ? 20 : 1));
      logger.info('working');
      if (request.requestId === 'req-a') throw new Error('boom');
      return { body: health };
    }) as unknown as Invoke;

    const [a, b] = await Promise.all([
      handler(event('req-a'), { awsRequestId: 'lambda-a' } as Context),
      handler(event('req-b'), { awsRequestId: 'lambda-b' } as Context),
    ]);

    expect([a.statusCode, b.statusCode]).toEqual([500, 200]);
    expect(lines.some((l) => l.msg === 'unhandled error')).toBe(true);
    expect(lines).toHaveLength(5);
    for (const line of lines) {
      expect(line.awsRequestId, line.msg).toBe(line.requestId === 'req-a' ? 'lambda-a' : 'lambda-b');
      expect(['req-a', 'req-b']).toContain(line.requestId);
    }
  });
});
