import { describe, expect, it } from 'vitest';
import { currentDisposition, type DecisionRecord, historyView } from '../../lib/screening/screen-record.ts';

const analyst = { user_id: 'ua', role: 'analyst' as const };
const admin = { user_id: 'ub', role: 'admin' as const };
const entry = (over: Partial<DecisionRecord>): DecisionRecord => ({
  disposition: 'false_positive',
  note: null,
  author: analyst,
  at: '2025-01-01T10:00:00Z',
  override: false,
  approval_requested: false,
  ...over,
});

describe('screen records', () => {
  it('shows a decision awaiting sign-off until an admin approves it', () => {
    const decision = entry({ approval_requested: true });
    expect(currentDisposition({ disposition: decision })).toMatchObject({
      disposition: 'false_positive',
      awaiting_approval: true,
    });
    const approved = currentDisposition({
      disposition: decision,
      approval: { author: admin, at: '2025-01-01T11:00:00Z', note: 'agreed' },
    });
    expect(approved).toMatchObject({
      disposition: 'approved',
      author: admin,
      note: 'agreed',
      awaiting_approval: false,
      approved_decision: decision,
    });
    expect(currentDisposition({})).toBeNull();
  });

  it('links each sign-off in the history to the decision it approved', () => {
    const view = historyView([
      entry({ disposition: 'needs_review' }),
      entry({ disposition: 'confirmed_hit', override: true, at: '2025-01-01T10:05:00Z' }),
      entry({ disposition: 'approved', author: admin, at: '2025-01-01T11:00:00Z' }),
    ]);
    expect(view[0].approved_by).toBeUndefined();
    expect(view[1]).toMatchObject({ approved_by: admin, approved_at: '2025-01-01T11:00:00Z' });
    expect(view[2].approves).toEqual({
      version: 2,
      disposition: 'confirmed_hit',
      author: analyst,
      at: '2025-01-01T10:05:00Z',
    });
    expect(view.map((v) => v.version)).toEqual([1, 2, 3]);
  });

  it('follows approves_version, and marks a sign-off a later decision replaced as no longer standing', () => {
    const view = historyView([
      entry({ disposition: 'needs_review' }),
      entry({ disposition: 'approved', author: admin, approves_version: 1, at: '2025-01-01T11:00:00Z' }),
      entry({ disposition: 'cleared', override: true, at: '2025-01-01T12:00:00Z' }),
    ]);
    expect(view[0]).toMatchObject({ approved_by: admin });
    expect(view[1].superseded_by).toEqual({
      version: 3,
      disposition: 'cleared',
      author: analyst,
      at: '2025-01-01T12:00:00Z',
    });
    expect(view[2].withdraws_approval).toMatchObject({ version: 2, author: admin });
    expect(view[2].approved_by).toBeUndefined();
  });
});
