import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../lib/common/errors.ts';

/**
 * The error codes are one list (lib/common/errors.ts): the API guide's table and the OpenAPI
 * document's ErrorBody say the same, so a client reading either can rely on every code it names.
 */
const guide = readFileSync('docs/api-guide.md', 'utf8');
const document = JSON.parse(readFileSync('docs/openapi.json', 'utf8'));

describe('ERROR_CODES', () => {
  it('the API guide lists every code with its status, and no other', () => {
    const table = guide.slice(guide.indexOf('### Error codes'), guide.indexOf('### By status'));
    const rows = [...table.matchAll(/^\| `([a-z_]+)` \| (\d{3}) \|/gm)].map(([, code, status]) => [
      code,
      Number(status),
    ]);

    expect(rows).toEqual(Object.entries(ERROR_CODES).map(([code, { status }]) => [code, status]));
  });

  it('the OpenAPI ErrorBody enumerates them as `code`', () => {
    const code = document.components.schemas.ErrorBody.properties.code;

    expect(code.enum).toEqual(Object.keys(ERROR_CODES));
    expect(document.components.schemas.ErrorBody.required).toEqual(
      expect.arrayContaining(['type', 'title', 'status', 'code', 'detail']),
    );
  });
});
