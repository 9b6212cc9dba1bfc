import { describe, expect, it } from 'vitest';
import { InvalidRequestError } from '../../lib/common/errors.ts';
import { isCalendarDate, ListQuerySchema } from '../../lib/common/fields.ts';
import { validate } from '../../lib/common/validation.ts';
import { DisposeRequestSchema, parseCheckTypes, ScreenRequestSchema } from '../../lib/screening/request.ts';

const screenBody = (body: unknown) => validate(ScreenRequestSchema, body, 'body');
const refusal = (fn: () => unknown): string => {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidRequestError);
    return (error as InvalidRequestError).detail;
  }
  throw new Error('expected a 400');
};

describe('POST /screen body', () => {
  it('trims text, defaults to all three checks and no force', () => {
    expect(screenBody({ name: '  Jane Doe ', nationality: ' British ' })).toEqual({
      name: 'Jane Doe',
      nationality: 'British',
      types: ['sanctions', 'pep', 'criminal'],
      force: false,
    });
  });

  it('treats null and blank optional fields as not given', () => {
    const body = screenBody({
      name: 'Jane Doe',
      dob: null,
      location: '   ',
      alias: null,
      types: null,
      force: null,
    });
    expect(body).toEqual({ name: 'Jane Doe', types: ['sanctions', 'pep', 'criminal'], force: false });
  });

  it('refuses names shorter than 2 characters after trimming', () => {
    expect(refusal(() => screenBody({ name: ' a ' }))).toBe('name: must be at least 2 characters');
    expect(refusal(() => screenBody({}))).toBe('name: is required');
    expect(refusal(() => screenBody({ name: 42 }))).toMatch(/^name: must be a string/);
    expect(refusal(() => screenBody({ name: 'x'.repeat(201) }))).toBe('name: must be at most 200 characters');
  });

  it('accepts only real, past calendar dates of birth', () => {
    expect(screenBody({ name: 'Jane Doe', dob: '1984-02-29' }).dob).toBe('1984-02-29');
    expect(refusal(() => screenBody({ name: 'Jane Doe', dob: '1985-02-29' }))).toBe(
      'dob: must be a real date in the form YYYY-MM-DD',
    );
    expect(refusal(() => screenBody({ name: 'Jane Doe', dob: '12/03/1980' }))).toBe(
      'dob: must be a real date in the form YYYY-MM-DD',
    );
    expect(refusal(() => screenBody({ name: 'Jane Doe', dob: '2999-01-01' }))).toBe(
      'dob: must not be in the future',
    );
    expect(refusal(() => screenBody({ name: 'Jane Doe', dob: '1850-01-01' }))).toBe(
      'dob: must be 1900 or later',
    );
  });

  it('parses types into the canonical order and refuses unknown or repeated entries', () => {
    expect(screenBody({ name: 'Jane Doe', types: 'criminal, SANCTIONS' }).types).toEqual([
      'sanctions',
      'criminal',
    ]);
    expect(refusal(() => screenBody({ name: 'Jane Doe', types: 'pep,adverse_media' }))).toMatch(
      /^types: unknown check type "adverse_media"/,
    );
    expect(refusal(() => screenBody({ name: 'Jane Doe', types: 'pep,pep' }))).toBe(
      'types: "pep" is listed twice',
    );
    expect(refusal(() => screenBody({ name: 'Jane Doe', types: '' }))).toMatch(
      /^types: must name at least one/,
    );
    expect(refusal(() => screenBody({ name: 'Jane Doe', types: ['pep'] }))).toMatch(
      /^types: must be a comma-separated/,
    );
  });

  it('refuses unknown fields by name, so a misspelt dob is not silently ignored', () => {
    expect(refusal(() => screenBody({ name: 'Jane Doe', dateOfBirth: '1980-01-01' }))).toBe(
      'dateOfBirth: is not a known field (check the spelling)',
    );
  });

  it('refuses a non-boolean force and bodies that are not objects', () => {
    expect(refusal(() => screenBody({ name: 'Jane Doe', force: 'yes' }))).toBe(
      'force: must be true or false',
    );
    expect(refusal(() => screenBody(undefined))).toBe('body: must be a JSON object');
    expect(refusal(() => screenBody([1, 2]))).toBe('body: must be a JSON object');
  });
});

describe('dispose body', () => {
  it('needs a known disposition', () => {
    expect(validate(DisposeRequestSchema, { disposition: 'cleared', note: ' ok ' }, 'body')).toEqual({
      disposition: 'cleared',
      note: 'ok',
      override: false,
      approval_requested: false,
    });
    expect(refusal(() => validate(DisposeRequestSchema, { disposition: 'escalated' }, 'body'))).toMatch(
      /^disposition: must be one of confirmed_hit, false_positive, needs_review, cleared, approved$/,
    );
    expect(refusal(() => validate(DisposeRequestSchema, {}, 'body'))).toBe('disposition: is required');
    expect(
      refusal(() => validate(DisposeRequestSchema, { disposition: 'cleared', notes: 'x' }, 'body')),
    ).toBe('notes: is not a known field (check the spelling)');
  });
});

describe('list query', () => {
  it('defaults limit to 50 and allows up to 200', () => {
    expect(validate(ListQuerySchema, {}, 'query')).toEqual({ limit: 50 });
    expect(validate(ListQuerySchema, { limit: '200' }, 'query').limit).toBe(200);
    expect(refusal(() => validate(ListQuerySchema, { limit: '201' }, 'query'))).toBe(
      'limit: must be at most 200',
    );
    expect(refusal(() => validate(ListQuerySchema, { limit: '0' }, 'query'))).toMatch(
      /^limit: must be a whole number/,
    );
    expect(refusal(() => validate(ListQuerySchema, { limit: 'ten' }, 'query'))).toMatch(
      /^limit: must be a whole number/,
    );
  });
});

describe('calendar dates and check types', () => {
  it('knows month lengths and leap years', () => {
    expect(isCalendarDate('2000-02-29')).toBe(true);
    expect(isCalendarDate('1900-02-29')).toBe(false);
    expect(isCalendarDate('2023-04-31')).toBe(false);
    expect(isCalendarDate('2023-13-01')).toBe(false);
  });

  it('parses a single type', () => {
    expect(parseCheckTypes('pep')).toEqual({ types: ['pep'] });
  });
});
