import { describe, expect, it } from 'vitest';
import { validateBatchRequest } from '../../lib/batch/request.ts';

describe('batch request validation', () => {
  it('accepts subjects with the fields of POST /screen and parses types', () => {
    const request = validateBatchRequest({
      subjects: [{ name: '  Ann Example ', nationality: 'Irish', location: 'Cork', dob: '1980-02-29' }],
      types: 'pep, sanctions',
    });

    expect(request.subjects[0]).toMatchObject({ name: 'Ann Example', dob: '1980-02-29' });
    expect(request.types).toEqual(['sanctions', 'pep']);
  });

  it('names the subject index and field of each problem', () => {
    expect(() =>
      validateBatchRequest({ subjects: [{ name: 'Ann Example' }, { name: 'Bo', dob: '1980-02-30' }] }),
    ).toThrow('subjects[1].dob: must be a real date in the form YYYY-MM-DD');
    expect(() => validateBatchRequest({ subjects: [{ nationality: 'Irish' }] })).toThrow(
      'subjects[0].name: is required',
    );
    expect(() => validateBatchRequest({ subjects: [{ name: 'Ann' }], types: 'sanctions,dna' })).toThrow(
      'types: unknown check type "dna"',
    );
  });

  it('refuses an empty batch, more than 500 subjects and a missing body', () => {
    expect(() => validateBatchRequest({ subjects: [] })).toThrow('subjects: must hold at least one subject');
    const subjects = Array.from({ length: 501 }, (_, i) => ({ name: `Person ${i}` }));
    expect(() => validateBatchRequest({ subjects })).toThrow('subjects: must hold at most 500 subjects');
    expect(() => validateBatchRequest(undefined)).toThrow(
      'body: must be a JSON object with a subjects array',
    );
  });
});
