/**
 * Errors as problem details (issue 39, item 8): served as application/problem+json, with each
 * broken field as `errors: [{ field, code, message }]` beside the `detail` every error has always
 * carried; a client whose Accept asks for application/json alone keeps getting application/json.
 */
import { describe, expect, it } from 'vitest';
import { useLocalStack } from '../support/api-client.ts';

const local = useLocalStack();
const key = () => local.stack.demoKeys.find((k) => k.plan === 'enterprise' && k.role === 'analyst')!.api_key;

async function send(path: string, init: RequestInit & { accept?: string } = {}) {
  const response = await fetch(`${local.stack.url}${path}`, {
    ...init,
    headers: {
      'x-api-key': key(),
      'content-type': 'application/json',
      ...(init.accept ? { accept: init.accept } : {}),
    },
  });
  return { status: response.status, type: response.headers.get('content-type'), body: await response.json() };
}

describe('error responses', { timeout: 60_000 }, () => {
  it('name each broken field and rule in `errors`, beside the same `detail`, as application/problem+json', async () => {
    const { status, type, body } = await send('/screen', {
      method: 'POST',
      body: JSON.stringify({ name: 'X', dob: 'string', dateOfBirth: '1980-01-01' }),
    });
    expect(status).toBe(400);
    expect(type).toBe('application/problem+json; charset=utf-8');
    expect(body.code).toBe('invalid_request');
    expect(body.detail).toContain('dateOfBirth: is not a known field');
    expect(body.errors).toEqual(
      expect.arrayContaining([
        { field: 'dateOfBirth', code: 'unknown_field', message: 'is not a known field (check the spelling)' },
      ]),
    );
    for (const problem of body.errors) expect(body.detail).toContain(`${problem.field}: ${problem.message}`);

    const fields = await send('/screen', {
      method: 'POST',
      body: JSON.stringify({ name: 'X', dob: 'string' }),
    });
    expect(fields.body.errors.map((problem: { field: string }) => problem.field).sort()).toEqual([
      'dob',
      'name',
    ]);
    expect(fields.body.errors.every((problem: { code: string }) => problem.code.length > 0)).toBe(true);

    const missing = await send('/screen', { method: 'POST', body: JSON.stringify({}) });
    expect(missing.body.errors).toEqual([{ field: 'name', code: 'required', message: 'is required' }]);

    const query = await send('/screens?limit=500');
    expect(query.body.errors).toEqual([
      { field: 'limit', code: 'max_value', message: 'must be at most 200' },
    ]);
  });

  it('keep application/json for a client that asks for it alone, and problem+json for every other error', async () => {
    const asked = await send('/screen', { method: 'POST', body: '{}', accept: 'application/json' });
    expect(asked.type).toBe('application/json; charset=utf-8');
    expect(asked.body.detail).toBe('name: is required');
    const both = await send('/screen', {
      method: 'POST',
      body: '{}',
      accept: 'application/problem+json, application/json;q=0.9',
    });
    expect(both.type).toBe('application/problem+json; charset=utf-8');
    const notFound = await send('/screens/SCR-20250101-000001');
    expect([notFound.status, notFound.type]).toEqual([404, 'application/problem+json; charset=utf-8']);
    expect(notFound.body.errors).toBeUndefined();
  });
});
