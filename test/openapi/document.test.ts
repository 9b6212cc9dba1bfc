import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { openApiDocument } from '../../lib/openapi/document.ts';
import { OPENAPI_FILE, openApiFileText } from '../../lib/openapi/file.ts';
import { type RouteDefinition, routes } from '../../lib/routes.ts';
import { useLocalStack } from '../screening/http-client.ts';

type Operations = Record<string, Record<string, { security: unknown[]; responses: Record<string, unknown> }>>;

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
