import { describe, expect, it } from 'vitest';
import { describeDatabase } from '../../lib/watchlists/status.ts';
import type { ListSummary } from '../../lib/watchlists/types.ts';
import { UK_FCDO_LIST } from '../../lib/watchlists/uk-fcdo.ts';

const list = (overrides: Partial<ListSummary>): ListSummary => ({
  id: 'un_sc',
  name: 'UN Security Council Consolidated List',
  category: 'sanctions',
  publisher: 'UN',
  licence: 'x',
  files: [],
  source_date: '2026-11-18',
  source_date_basis: 'dateGenerated',
  entity_count: 1003,
  individual_count: 730,
  synced_at: '2026-11-21T08:00:00Z',
  ...overrides,
});

describe('database status', () => {
  const now = new Date('2026-11-21T12:00:00Z');

  it('keeps a sanctions list published within 7 days and synced today fresh', () => {
    const status = describeDatabase([list({})], now);

    expect(status.lists[0]).toMatchObject({
      age_days: 3,
      age_limit_days: 7,
      stale: false,
      stale_reasons: [],
    });
    expect(status.stale).toBe(false);
  });

  it('flags a sanctions list published 8 days ago, and the database with it', () => {
    const status = describeDatabase([list({ source_date: '2026-11-13' }), list({ id: 'uk_ofsi' })], now);

    expect(status.lists[0].stale).toBe(true);
    expect(status.lists[0].stale_reasons[0]).toMatch(/published 8 days ago \(limit 7\)/);
    expect(status.stale).toBe(true);
    expect(status.stale_lists).toEqual(['un_sc']);
  });

  it('gives PEP lists 30 days and flags a sync older than 24 hours', () => {
    const pep = list({ id: 'us_congress_pep', category: 'pep', source_date: '2026-10-25' });
    const unsynced = list({ id: 'ofac_sdn', synced_at: '2026-11-20T10:00:00Z' });

    const status = describeDatabase([pep, unsynced], now);

    expect(status.lists[0].stale).toBe(false);
    expect(status.lists[1].stale_reasons).toEqual(['last synced 26 hours ago (limit 24)']);
    expect(status.totals).toEqual({ lists: 2, entities: 2006, individuals: 1460 });
  });

  it('shows each list its caveats and attribution, e.g. that the UK list carries no dates of birth', () => {
    const status = describeDatabase(
      [list({ ...UK_FCDO_LIST, entity_count: 6349, individual_count: 4036 })],
      now,
    );

    expect(status.lists[0].notes.join(' ')).toMatch(/no dates of birth/);
    expect(status.lists[0].attribution).toMatch(/Open Government Licence v3\.0/);
  });
});
