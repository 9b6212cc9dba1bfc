import type { RiskLevel } from '../../lib/matcher/types.ts';
import { formatScreenId } from '../../lib/screening/screen-id.ts';
import type { ScreenItem, ScreenOrigin } from '../../lib/screening/screen-record.ts';
import { indexKeys, keys } from '../../lib/store/schema.ts';
import type { ListId } from '../../lib/watchlists/types.ts';

/** What a seeded screen varies in; the rest is a CLEAR-looking pending screen of a made-up person. */
export interface SeededScreen {
  /** Its number in the day (screen ids sort by it: a higher one is newer). */
  sequence: number;
  /** `YYYYMMDD`; default 20260301. */
  day?: string;
  risk_level?: RiskLevel;
  origin?: ScreenOrigin;
  /** Lists its (sanctions) match is on; none: no match. */
  lists?: ListId[];
}

/**
 * A pending screen item as POST /screen leaves it (pending and subject index keys, results,
 * `matched_lists`), written straight into the table by tests and benches that measure the screen
 * lists rather than screening.
 */
export function pendingScreenItem(
  tenantId: string,
  seeded: SeededScreen,
): ScreenItem & Record<string, unknown> {
  const day = seeded.day ?? '20260301';
  const screenId = formatScreenId(day, seeded.sequence);
  const risk = seeded.risk_level ?? 'CLEAR';
  const lists = seeded.lists ?? [];
  const matches = lists.map((list) => ({
    list_id: list,
    list_name: list,
    entity_id: `${list}-${seeded.sequence}`,
    primary_name: 'Listed Person',
    matched_name: 'Listed Person',
    matched_input: 'name' as const,
    score: 0.9,
    name_score: 0.9,
    risk_level: risk,
    dobs: [],
    nationalities: [],
    programmes: [],
    explanation: {
      name: { status: 'matched' as const, detail: 'seeded' },
      dob: { status: 'unknown' as const, detail: 'seeded' },
      nationality: { status: 'unknown' as const, detail: 'seeded' },
      location: { status: 'unknown' as const, detail: 'seeded' },
    },
    listings: [],
  }));
  const hash = `seeded${String(seeded.sequence).padStart(10, '0')}`;
  return {
    ...keys.screen(tenantId, screenId),
    ...indexKeys('pendingScreens', keys.pendingIndex(tenantId), screenId),
    entity: 'screen',
    screen_id: screenId,
    tenant_id: tenantId,
    subject: { name: `Seeded Person ${seeded.sequence}` },
    subject_hash: hash,
    types: ['sanctions', 'pep', 'criminal'],
    risk_level: risk,
    sanctions_result: {
      risk_level: lists.length > 0 ? risk : 'CLEAR',
      is_sanctioned: lists.length > 0 && (risk === 'HIGH' || risk === 'CRITICAL'),
      matches,
      narrative: 'Seeded.',
    },
    pep_result: null,
    criminal_result: null,
    matched_lists: lists,
    screened_at: `${day.slice(0, 4)}-${day.slice(4, 6)}-${day.slice(6, 8)}T09:00:00Z`,
    created_by: { user_id: 'seed', role: 'admin' },
    history: [],
    origin: seeded.origin ?? 'api',
  };
}
