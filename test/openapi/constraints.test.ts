/**
 * Constraints a generated SDK can check (issue 39, item 8): the OpenAPI document states the form
 * of a date of birth, a name's minimum length, `limit` as an integer 1 to 200 and the enumerations,
 * generated from the valibot schemas the server validates with (`v.metadata` where JSON Schema
 * cannot read a rule from the pipe), and every request example keeps them.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { openApiDocument } from '../../lib/openapi/document.ts';

// biome-ignore lint/suspicious/noExplicitAny: the test walks the generated document
const document = openApiDocument() as any;
const screenBody = document.paths['/screen'].post.requestBody.content['application/json'];

describe('the OpenAPI document’s request constraints', () => {
  it('states the form of dob, the least length of name and limit as an integer 1 to 200', () => {
    const ajv = new Ajv2020({ strict: false });
    const validate = ajv.compile(screenBody.schema);
    expect(validate({ name: 'Vladimir Putin', dob: '1952-10-07' })).toBe(true);
    expect(validate({ name: 'Vladimir Putin', dob: '1952' })).toBe(true);
    expect(validate({ name: 'Vladimir Putin', dob: 'string' })).toBe(false);
    expect(validate({ name: 'X' })).toBe(false);
    expect(validate({ name: 'Vladimir Putin', dateOfBirth: '1952-10-07' })).toBe(false);

    const limit = document.paths['/screens'].get.parameters.find((p: { name: string }) => p.name === 'limit');
    expect(limit.schema).toEqual({ type: 'integer', minimum: 1, maximum: 200, default: 50 });
    const dispose =
      document.paths['/screens/{screen_id}/dispose'].post.requestBody.content['application/json'];
    expect(dispose.schema.properties.disposition.enum).toEqual([
      'confirmed_hit',
      'false_positive',
      'needs_review',
      'cleared',
      'approved',
    ]);
  });

  it('keeps every request example within its body’s schema', () => {
    const ajv = new Ajv2020({ strict: false });
    for (const [path, item] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(
        item as Record<
          string,
          { requestBody?: { content: Record<string, { schema: object; example?: unknown }> } }
        >,
      )) {
        const media = operation.requestBody?.content['application/json'];
        if (!media) continue;
        const validate = ajv.compile(media.schema);
        expect(
          validate(media.example),
          `${method.toUpperCase()} ${path}: ${ajv.errorsText(validate.errors)}`,
        ).toBe(true);
      }
    }
  });
});
