/**
 * What a re-screen means for a decision carried forward (lib/monitoring/rescreen-review.ts), on
 * real matches: the UN file's first designee (Eric Badege, CDi.001), screened on the real file and
 * on the same file amended the way the publisher amends an entry. A false positive or cleared
 * re-opens when the listing gains identifying data that bears on the client, or when the
 * client's own data changed; a cosmetic edit carries it with a note; a confirmed hit is carried
 * across any listing change.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createMatcher } from '../../lib/matcher/screen.ts';
import { reviewRescreen } from '../../lib/monitoring/rescreen-review.ts';
import { compareWithBaseline } from '../../lib/screening/change-detection.ts';
import type { DecisionRecord, ScreenItem } from '../../lib/screening/screen-record.ts';
import type { Subject } from '../../lib/screening/subject.ts';
import { createListMirror, snapshotOfLists, UN_FILE } from '../support/list-mirror.ts';

const mirror = createListMirror([UN_FILE]);
afterAll(() => mirror.close());
const original = mirror.read(UN_FILE);

/** The matcher over the UN file as the publisher serves it after `amend`. */
function unMatcher(amend: (xml: string) => string = (xml) => xml) {
  const amended = amend(original);
  mirror.write(UN_FILE, amended);
  return createMatcher(snapshotOfLists(['un_sc'], { dir: mirror.dir }));
}

/** Replaces the first occurrence, and fails the test when the text is not there. */
const amendOnce = (from: string, to: string) => (xml: string) => {
  expect(xml).toContain(from);
  return xml.replace(from, to);
};

// His entry is the file's first: its first NATIONALITY, UN_LIST_TYPE, alias and date of birth.
const AMENDMENTS = {
  dob: amendOnce(
    '<YEAR>1971</YEAR>\n      </INDIVIDUAL_DATE_OF_BIRTH>',
    '<YEAR>1971</YEAR>\n      </INDIVIDUAL_DATE_OF_BIRTH>\n      <INDIVIDUAL_DATE_OF_BIRTH>\n        <TYPE_OF_DATE>EXACT</TYPE_OF_DATE>\n        <DATE>1972-03-15</DATE>\n      </INDIVIDUAL_DATE_OF_BIRTH>',
  ),
  nationality: amendOnce(
    '<VALUE>Democratic Republic of the Congo</VALUE>\n      </NATIONALITY>',
    '<VALUE>Democratic Republic of the Congo</VALUE>\n        <VALUE>Rwanda</VALUE>\n      </NATIONALITY>',
  ),
  alias: amendOnce(
    '<INDIVIDUAL_ALIAS>\n        <QUALITY/>\n        <ALIAS_NAME/>\n      </INDIVIDUAL_ALIAS>',
    '<INDIVIDUAL_ALIAS>\n        <QUALITY>Good</QUALITY>\n        <ALIAS_NAME>Erick Badeghe Mutima</ALIAS_NAME>\n      </INDIVIDUAL_ALIAS>',
  ),
  programmeWording: amendOnce(
    '<UN_LIST_TYPE>DRC</UN_LIST_TYPE>',
    '<UN_LIST_TYPE>DRC (resolution 2078)</UN_LIST_TYPE>',
  ),
};

const BADEGE = '6907993';
const before = unMatcher();
const after = Object.fromEntries(
  Object.entries(AMENDMENTS).map(([name, amend]) => [name, unMatcher(amend)]),
) as Record<keyof typeof AMENDMENTS, ReturnType<typeof unMatcher>>;

const analyst = { user_id: 'uanalyst', role: 'analyst' as const };
const decision = (
  disposition: DecisionRecord['disposition'],
  approval_requested = false,
): DecisionRecord => ({
  disposition,
  note: 'Reviewed',
  author: analyst,
  at: '2026-11-01T10:00:00Z',
  override: false,
  approval_requested,
});

let sequence = 0;
/** A client's screen of `subject` by `matcher`, as stored. */
function screen(
  matcher: ReturnType<typeof unMatcher>,
  subject: Subject,
  extra: Partial<ScreenItem> = {},
): ScreenItem {
  sequence += 1;
  const screenId = `SCR-20261101-${String(sequence).padStart(6, '0')}`;
  const checks = matcher.screen(subject, ['sanctions']);
  return {
    pk: 'TENANT#t',
    sk: `SCREEN#${screenId}`,
    entity: 'screen',
    screen_id: screenId,
    tenant_id: 't',
    subject,
    subject_hash: 'h',
    types: ['sanctions'],
    ...checks,
    screened_at: `2026-11-01T00:00:${String(sequence % 60).padStart(2, '0')}Z`,
    created_by: { user_id: 'system', role: 'system' },
    history: [],
    origin: 'rescreen',
    client_id: 'CLI-20261101-000000000-abcdef',
    ...extra,
  };
}

const decided = (item: ScreenItem, value: DecisionRecord) => ({
  ...item,
  disposition: value,
  decision_version: 1,
  history: [value],
  history_count: 1,
});

const client: Subject = { name: 'Eric Badege' };
const badegeMatch = (item: ScreenItem) =>
  item.sanctions_result?.matches.find((match) => match.entity_id === BADEGE);

describe('a carried-forward false positive or cleared', () => {
  it.each([
    ['a date of birth', 'dob', /gained date of birth 1972-03-15/],
    ['a nationality', 'nationality', /gained nationality Rwanda/],
  ] as const)('re-opens when the matched listing gains %s', (_what, amendment, reason) => {
    const baseline = decided(screen(before, client), decision('false_positive'));
    const fresh = screen(after[amendment], client);

    const reviewed = reviewRescreen(fresh, { previous: baseline, baseline });

    expect(reviewed.disposition).toBeUndefined();
    expect(reviewed.alert?.matches_changed.map((m) => m.entity_id)).toEqual([BADEGE]);
    expect(reviewed.alert?.reasons?.join('\n')).toMatch(reason);
    expect(reviewed.alert).toMatchObject({
      baseline_screen_id: baseline.screen_id,
      raised_by_screen_id: fresh.screen_id,
    });
    expect(reviewed.history).toHaveLength(1);
    expect(reviewed.history[0]).toMatchObject({ disposition: 'not_carried', author: { role: 'system' } });
    expect(reviewed.history[0].note).toMatch(reason);
    expect(reviewed.history[0].note).toContain(`false_positive decided on ${baseline.screen_id}`);
  });

  it('re-opens when the listing gains a name closer to the client’s', () => {
    const similar: Subject = { name: 'Erick Badeghe Mutima' };
    const baseline = decided(screen(before, similar), decision('cleared'));
    expect(badegeMatch(baseline)).toBeDefined();
    const fresh = screen(after.alias, similar);
    expect(badegeMatch(fresh)?.name_score).toBeGreaterThan(badegeMatch(baseline)?.name_score ?? 1);

    const reviewed = reviewRescreen(fresh, { previous: baseline, baseline });

    expect(reviewed.disposition).toBeUndefined();
    expect(reviewed.alert?.reasons?.join('\n')).toMatch(
      /gained a name closer to the client's: "Erick Badeghe Mutima"/,
    );
    expect(reviewed.history[0].disposition).toBe('not_carried');
  });

  it('is carried, with a note, across a programme wording change', () => {
    const baseline = decided(screen(before, client), decision('false_positive'));
    const fresh = screen(after.programmeWording, client);
    expect(compareWithBaseline(baseline, fresh).cosmetic.map((c) => c.match.entity_id)).toEqual([BADEGE]);

    const reviewed = reviewRescreen(fresh, { previous: baseline, baseline });

    expect(reviewed.alert).toBeUndefined();
    expect(reviewed.disposition).toMatchObject({
      disposition: 'false_positive',
      author: analyst,
      carried_by: { user_id: 'system', role: 'system' },
      carried_from: {
        screen_id: baseline.screen_id,
        decision_version: 1,
        decided_at: '2026-11-01T10:00:00Z',
      },
    });
    expect(reviewed.disposition?.note).toMatch(/do not bear on it: un_sc 6907993 .*programmes reworded/);
    expect(reviewed.decision_source_screen_id).toBe(baseline.screen_id);
  });

  it('re-opens when the client’s own data differs from the baseline screen’s', () => {
    const baseline = decided(screen(before, client), decision('cleared'));
    const fresh = screen(before, { ...client, dob: '1971-05-01' });

    const reviewed = reviewRescreen(fresh, { previous: baseline, baseline });

    expect(reviewed.disposition).toBeUndefined();
    expect(reviewed.alert?.reasons).toContain("the client's dob changed");
  });
});

describe('a confirmed hit', () => {
  it('is carried across a listing that gains identifying data, noting the change', () => {
    const baseline = decided(screen(before, client), decision('confirmed_hit'));
    const fresh = screen(after.dob, client);

    const reviewed = reviewRescreen(fresh, { previous: baseline, baseline });

    expect(reviewed.alert).toBeUndefined();
    expect(reviewed.disposition).toMatchObject({
      disposition: 'confirmed_hit',
      author: analyst,
      carried_by: { role: 'system' },
    });
    expect(reviewed.disposition?.note).toMatch(/gained date of birth 1972-03-15/);
  });
});

describe('a decision awaiting approval', () => {
  it('is not settled: the new screen stays pending and its history says why', () => {
    const baseline = decided(screen(before, client), decision('false_positive', true));
    const fresh = screen(before, client);

    const reviewed = reviewRescreen(fresh, { previous: baseline, baseline });

    expect(reviewed.disposition).toBeUndefined();
    expect(reviewed.alert).toBeUndefined();
    expect(reviewed.history[0].note).toContain(`decision on ${baseline.screen_id} awaits approval`);
  });

  it('once approved, is carried', () => {
    const baseline = {
      ...decided(screen(before, client), decision('false_positive', true)),
      approval: {
        author: { user_id: 'uadmin', role: 'admin' as const },
        at: '2026-11-02T10:00:00Z',
        note: null,
      },
    };
    const reviewed = reviewRescreen(screen(before, client), { previous: baseline, baseline });

    expect(reviewed.disposition).toMatchObject({
      disposition: 'false_positive',
      author: analyst,
      carried_by: { role: 'system' },
    });
    expect(reviewed.disposition?.note).toContain('approved by uadmin');
  });
});

describe('a carried decision stays its author’s (issue 35: four eyes follows the decision)', () => {
  it('carried on from screen to screen, it keeps the person who made it, their key lineage and where they made it', () => {
    const made = { ...decision('cleared'), author_key_lineage: ['uadmin'] };
    const first = decided(screen(before, client), made);
    const second = reviewRescreen(screen(before, client), { previous: first, baseline: first });
    const third = reviewRescreen(screen(before, client), { previous: second, baseline: second });

    for (const carried of [second, third]) {
      expect(carried.disposition).toMatchObject({
        disposition: 'cleared',
        author: analyst,
        author_key_lineage: ['uadmin'],
        carried_by: { user_id: 'system', role: 'system' },
        carried_from: { screen_id: first.screen_id, decision_version: 1, decided_at: made.at },
      });
      expect(carried.decision_source_screen_id).toBe(first.screen_id);
    }
    expect(third.disposition?.note).toContain(
      `Carried forward from ${second.screen_id} (decided by uanalyst)`,
    );
  });

  it('a decision the system carried before carriers were recorded names no person: carried on, its author stays the system', () => {
    const legacy = {
      ...decided(screen(before, client), {
        ...decision('cleared'),
        author: { user_id: 'system', role: 'system' },
      }),
      decision_source_screen_id: 'SCR-20261001-000001',
    };

    const reviewed = reviewRescreen(screen(before, client), { previous: legacy, baseline: legacy });

    expect(reviewed.disposition).toMatchObject({
      author: { user_id: 'system', role: 'system' },
      carried_by: { role: 'system' },
      carried_from: { screen_id: 'SCR-20261001-000001', decision_version: null, decided_at: null },
    });
    expect(reviewed.decision_source_screen_id).toBe('SCR-20261001-000001');
  });
});
