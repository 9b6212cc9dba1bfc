/**
 * `Try it out` works as written (issue 39, item 8): every operation of docs/openapi.json that takes
 * a request body carries an example, and the local stack accepts each example as it stands (2xx),
 * sent with an Enterprise admin's key, the path's ids those of records made for it.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { getServices } from '../../lib/runtime/services.ts';
import { createTenant } from '../../lib/tenancy/tenants.ts';
import { madeUpName, useLocalStack } from '../support/api-client.ts';
import { readEvents } from '../support/sse.ts';

const local = useLocalStack();

interface OperationObject {
  operationId: string;
  requestBody?: { content: Record<string, { example?: unknown }> };
}
const document = JSON.parse(readFileSync(new URL('../../docs/openapi.json', import.meta.url), 'utf8')) as {
  paths: Record<string, Record<string, OperationObject>>;
};
const withBodies = Object.entries(document.paths).flatMap(([path, item]) =>
  Object.entries(item)
    .filter(([, operation]) => operation.requestBody)
    .map(([method, operation]) => ({ path, method: method.toUpperCase(), operation })),
);

describe('the request examples of the OpenAPI document', { timeout: 180_000 }, () => {
  it('exist for every operation that takes a body', () => {
    expect(withBodies.length).toBeGreaterThanOrEqual(10);
    const without = withBodies
      .filter(({ operation }) => operation.requestBody?.content['application/json']?.example === undefined)
      .map(({ operation }) => operation.operationId);
    expect(without).toEqual([]);
  });

  it('are each accepted as they stand by the local stack (2xx)', async () => {
    const { admin } = await createTenant(getServices().table, { name: 'Try it out', plan: 'enterprise' });
    const key = admin.api_key as string;
    const send = (method: string, path: string, body: unknown) =>
      fetch(`${local.stack.url}${path}`, {
        method,
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    // The records a path names, made for it.
    const ids: Record<string, () => Promise<string>> = {
      screen_id: async () =>
        (await local.api.post('/screen', key, { name: madeUpName(), force: true })).body.screen_id,
      webhook_id: async () =>
        (
          await local.api.post('/webhooks', key, {
            url: 'http://127.0.0.1:9/other',
            events: ['monitoring.alert'],
          })
        ).body.webhook.webhook_id,
    };
    const answers: string[] = [];
    for (const { path, method, operation } of withBodies) {
      let url = path;
      for (const [, name] of path.matchAll(/\{(\w+)\}/g)) url = url.replace(`{${name}}`, await ids[name]());
      const example = operation.requestBody?.content['application/json']?.example;
      const response = await send(method, url, example);
      const stream = response.headers.get('content-type')?.startsWith('text/event-stream');
      const detail = stream ? (await readEvents(response)).at(-1)?.event : (await response.json()).detail;
      answers.push(`${operation.operationId} ${response.status}${response.ok ? '' : ` ${detail}`}`);
      if (stream) expect(detail, operation.operationId).toBe('complete');
    }
    expect(answers.filter((answer) => !/ 2\d\d$/.test(answer))).toEqual([]);
  });
});
