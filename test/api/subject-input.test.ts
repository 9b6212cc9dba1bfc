import { beforeAll, describe, expect, it } from 'vitest';
import { demoKey, madeUpName, useLocalStack } from '../support/api-client.ts';

/**
 * What a subject may say, through HTTP: dates of birth as precise as the caller knows them
 * (year, year and month, full date) compared with listed dates of any precision; nationality as
 * a name or an ISO 3166 alpha-2 or alpha-3 code; and each check's matches saying when they were cut.
 */
const local = useLocalStack();
let key: string;
beforeAll(() => {
  key = demoKey(local.stack, 'tdemoenterprise', 'analyst').api_key;
});

/** The explanation of the sanctions match on the listed person screened. */
async function bestMatch(subject: Record<string, unknown>) {
  const { status, body } = await local.api.post('/screen', key, {
    name: 'Vladimir Putin',
    force: true,
    ...subject,
  });
  expect(status).toBe(200);
  return { screen: body, match: body.sanctions_result.matches[0] };
}

describe('dates of birth of any precision', () => {
  it.each([
    ['1952', 'matched'],
    ['1952-10', 'matched'],
    ['1952-10-07', 'matched'],
    ['1953', 'near'],
    ['1971', 'mismatched'],
    ['1971-05', 'mismatched'],
  ])('dob %s against the listed 1952-10-07 is %s, and is stored as given', async (dob, status) => {
    const { screen, match } = await bestMatch({ dob });

    expect(screen.subject.dob).toBe(dob);
    expect(match.explanation.dob.status).toBe(status);
  });

  it.each([
    ['1952-13', 'dob: must be a real month in the form YYYY-MM'],
    ['1952-1', 'dob: must be a real date in the form YYYY-MM-DD'],
    ['195', 'dob: must be a real date in the form YYYY-MM-DD'],
    ['1985-02-29', 'dob: must be a real date in the form YYYY-MM-DD'],
    ['2999', 'dob: must not be in the future'],
    ['2999-01', 'dob: must not be in the future'],
    ['1850', 'dob: must be 1900 or later'],
  ])('refuses dob %s with a 400: %s', async (dob, detail) => {
    const { status, body } = await local.api.post('/screen', key, { name: madeUpName(), dob });

    expect(status).toBe(400);
    expect(body.detail).toBe(detail);
  });

  it('this year and this month are not in the future; registration takes partial dates too', async () => {
    const now = new Date().toISOString();
    const year = await local.api.post('/screen', key, { name: madeUpName(), dob: now.slice(0, 4) });
    const month = await local.api.post('/clients', key, { name: madeUpName(), dob: now.slice(0, 7) });

    expect(year.status).toBe(200);
    expect(month.status).toBe(201);
    expect(month.body.subject.dob).toBe(now.slice(0, 7));
  });
});

describe('nationality as an ISO 3166 code', () => {
  it.each([['RU'], ['RUS'], ['rus'], ['Russian'], ['Russia']])(
    'nationality %s agrees with the listed Russia',
    async (nationality) => {
      const { match } = await bestMatch({ nationality });

      expect(match.explanation.nationality.status).toBe('matched');
    },
  );

  it.each([['FR'], ['FRA'], ['fra']])('nationality %s contradicts it', async (nationality) => {
    const { match } = await bestMatch({ nationality });

    expect(match.explanation.nationality.status).toBe('mismatched');
  });

  it('a three-letter text that is no code stays unknown', async () => {
    const { match } = await bestMatch({ nationality: 'XQZ' });

    expect(match.explanation.nationality.status).toBe('unknown');
  });
});

describe('match lists say when they were cut', () => {
  it('each check gives total and truncated; a common name has more matches than the 10 shown', async () => {
    const listed = (await bestMatch({})).screen;
    const common = (await local.api.post('/screen', key, { name: 'Mohammed Ali', force: true })).body;
    const read = (await local.api.get(`/screens/${common.screen_id}`, key)).body;

    for (const result of [listed.sanctions_result, listed.pep_result]) {
      expect(result.total).toBeGreaterThanOrEqual(result.matches.length);
      expect(result.truncated).toBe(result.total > result.matches.length);
    }
    const criminal = listed.criminal_result;
    expect(criminal.total).toBe(criminal.interpol_hits.length + criminal.fbi_hits.length);
    expect(common.sanctions_result.matches).toHaveLength(10);
    expect(common.sanctions_result.total).toBeGreaterThan(10);
    expect(common.sanctions_result.truncated).toBe(true);
    expect(read.sanctions_result).toMatchObject({ total: common.sanctions_result.total, truncated: true });
  });
});
