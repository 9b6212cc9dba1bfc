import { describe, expect, it } from 'vitest';
import { contractOf } from '../support/contract.ts';

/** The contract checker the HTTP tests run every response through (test/support/contract-setup.ts). */
const contract = contractOf();
const url = (path: string) => `http://127.0.0.1:3000${path}`;
const JSON_HEADERS = new Headers({
  'content-type': 'application/json; charset=utf-8',
  'x-request-id': 'r-1',
});
const health = { status: 'ok', version: '1.5.0', timestamp: '2026-11-24T10:00:00.000+00:00' };

describe('the contract checker', () => {
  it('passes a response that keeps the document', () => {
    expect(contract.check('GET', url('/health'), 200, JSON_HEADERS, JSON.stringify(health))).toEqual({
      operation: 'GET /health',
      problems: [],
    });
  });

  it('names a status the operation does not declare', () => {
    const { problems } = contract.check('GET', url('/health'), 404, JSON_HEADERS, '{"detail":"x"}');

    expect(problems).toEqual([expect.stringContaining('GET /health: status 404 is not declared')]);
  });

  it('names a body that does not match: a missing field, a field the schema does not have', () => {
    const { status: _dropped, ...missing } = health;

    expect(
      contract.check('GET', url('/health'), 200, JSON_HEADERS, JSON.stringify(missing)).problems,
    ).toEqual([expect.stringContaining("must have required property 'status'")]);
    expect(
      contract.check('GET', url('/health'), 200, JSON_HEADERS, JSON.stringify({ ...health, uptime: 3 }))
        .problems,
    ).toEqual([expect.stringContaining('must NOT have additional properties')]);
  });

  it('names a required header field the response lacks', () => {
    const bare = new Headers({ 'content-type': 'application/json' });

    expect(contract.check('GET', url('/health'), 200, bare, JSON.stringify(health)).problems).toEqual([
      'GET /health 200: no X-Request-Id header',
    ]);
  });

  it('checks an error body against the { detail } schema', () => {
    const { problems } = contract.check('GET', url('/me'), 401, JSON_HEADERS, '{"message":"no"}');

    expect(problems.join('\n')).toContain("must have required property 'detail'");
  });

  it('reads a literal path as itself, not as a path parameter', () => {
    const page = JSON.stringify({ screens: [], next_cursor: null });

    expect(contract.check('GET', url('/screens/pending?limit=5'), 200, JSON_HEADERS, page)).toEqual({
      operation: 'GET /screens/pending',
      problems: [],
    });
  });

  it('leaves requests no operation takes (the fallback’s 404 and 405) unchecked', () => {
    expect(contract.check('GET', url('/nowhere'), 404, JSON_HEADERS, '{}')).toEqual({
      operation: undefined,
      problems: [],
    });
  });

  it('checks each event of a stream: its name declared, its data matching', () => {
    const problems: string[] = [];
    const checker = contract.eventChecker('GET', url('/batch/BAT-20261124-f106a27474/events'), (problem) =>
      problems.push(problem),
    );

    checker?.feed('event: start\ndata: {"batch_id":"BAT-20261124-f106a27474","total":1}\n\n: heartbeat\n\n');
    checker?.feed('event: progress\ndata: {"batch_id":"BAT-20261124-f106a27474","index":0}\n\n');
    checker?.feed('event: finished\ndata: {}\n\n');

    expect(problems[0]).toContain(
      'GET /batch/{batch_id}/events event "progress" must have required property',
    );
    expect(problems.at(-1)).toContain('event "finished" is not declared');
    expect(problems.join('\n')).not.toContain('"start"');
  });
});
