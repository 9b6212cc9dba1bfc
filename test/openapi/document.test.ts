import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { type RouteDefinition, routes } from '../../lib/contract/routes.ts';
import { openApiDocument } from '../../lib/openapi/document.ts';
import { OPENAPI_FILE, openApiFileText } from '../../lib/openapi/file.ts';
import { useLocalStack } from '../support/api-client.ts';
import { contractOf } from '../support/contract.ts';

interface MediaType {
  example?: unknown;
}
interface OperationObject {
  operationId: string;
  security: unknown[];
  responses: Record<string, { content?: Record<string, MediaType> }>;
}
type Operations = Record<string, Record<string, OperationObject>>;

const document = openApiDocument();
const paths = document.paths as Operations;
const manifest: readonly RouteDefinition[] = routes;

describe('the OpenAPI document', () => {
  it('has exactly the manifest’s routes: every route in it, nothing else', () => {
    const documented = Object.entries(paths).flatMap(([path, item]) =>
      Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`),
    );

    expect(documented.sort()).toEqual(manifest.map((route) => `${route.method} ${route.path}`).sort());
  });

  it('asks for X-API-Key exactly where the route authenticates it', () => {
    for (const route of manifest) {
      const operation = paths[route.path][route.method.toLowerCase()];
      expect(operation.security, route.id).toEqual(route.auth === 'api-key' ? [{ ApiKey: [] }] : []);
      if (route.auth === 'api-key') expect(Object.keys(operation.responses), route.id).toContain('401');
    }
    expect(document.components).toMatchObject({
      securitySchemes: { ApiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' } },
    });
  });

  it('shows a real answer as the example of every success response with a body, each keeping its schema', () => {
    const contract = contractOf(document);
    const withoutExample: string[] = [];
    for (const [path, item] of Object.entries(paths)) {
      for (const [method, operation] of Object.entries(item)) {
        const url = `http://127.0.0.1${path.replace(/\{\w+\}/g, 'example')}`;
        for (const [status, response] of Object.entries(operation.responses)) {
          for (const [type, media] of Object.entries(response.content ?? {})) {
            if (media.example === undefined) {
              // The reference page's HTML, scripts and icons are files, not answers to show.
              const answer = type === 'application/json' || type === 'text/event-stream';
              if (status.startsWith('2') && operation.operationId !== 'openapi' && answer)
                withoutExample.push(operation.operationId);
              continue;
            }
            const problems: string[] = [];
            if (type === 'text/event-stream') {
              contract
                .eventChecker(method, url, (problem) => problems.push(problem))
                ?.feed(String(media.example));
            } else {
              problems.push(
                ...contract.check(
                  method,
                  url,
                  Number(status),
                  new Headers({ 'content-type': type, 'x-request-id': 'r' }),
                  JSON.stringify(media.example),
                ).problems,
              );
            }
            expect(problems, `${operation.operationId} ${status}`).toEqual([]);
          }
        }
      }
    }
    expect(withoutExample).toEqual([]);
  });

  it('is committed as generated (run `npm run openapi` after changing a route or a schema)', () => {
    expect(readFileSync(OPENAPI_FILE, 'utf8')).toBe(openApiFileText(document));
  });
});

describe('GET /openapi.json', () => {
  const local = useLocalStack();

  it('serves the generated document without a key', async () => {
    const response = await fetch(`${local.stack.url}/openapi.json`);

    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await response.json()).toEqual(document);
  });
});
