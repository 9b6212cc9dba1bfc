import { listStaleReasons } from '../watchlists/status.ts';
import type { CheckType, ListId } from '../watchlists/types.ts';
import type { ScreenReceipt } from './receipt.ts';

/**
 * Which of the lists a screen was taken on were stale when it was made (the rule of GET /dbstatus,
 * lib/watchlists/status.ts, applied at the screen's time to the lists its receipt records), so a
 * CLEAR on lists days behind their publisher says so on the screen itself (issue 39). Computed from
 * the receipt, never stored apart from it: the receipt is the record, this is a reading of it.
 */

/** The check each list serves: a screen used the lists of the check types it ran. */
const LIST_CHECK: Record<ListId, CheckType> = {
  ofac_sdn: 'sanctions',
  un_sc: 'sanctions',
  uk_ofsi: 'sanctions',
  uk_fcdo: 'sanctions',
  eu_fsf: 'sanctions',
  ofac_cons: 'sanctions',
  ca_sema: 'sanctions',
  au_dfat: 'sanctions',
  nz_russia: 'sanctions',
  us_congress_pep: 'pep',
  us_executive_pep: 'pep',
  world_leaders_pep: 'pep',
  intl_bodies_pep: 'pep',
  fbi_wanted: 'criminal',
  interpol_red: 'criminal',
};

/** A list that was stale when the screen was made, and why. */
export interface StaleList {
  id: string;
  source_date: string | null;
  synced_at: string;
  reasons: string[];
}

/**
 * The stale lists among those the screen used, at `screenedAt`; undefined for a screen stored
 * before receipts (nothing records its lists). A list whose sync failed is stale by the age its
 * data reached; the sync's error itself is not on the receipt.
 */
export function listsStaleAt(
  receipt: ScreenReceipt | undefined,
  types: readonly CheckType[],
  screenedAt: string,
): StaleList[] | undefined {
  if (!receipt) return undefined;
  const at = new Date(screenedAt);
  return receipt.snapshot.lists.flatMap((list): StaleList[] => {
    const check = LIST_CHECK[list.id as ListId];
    if (!check || !types.includes(check)) return [];
    const reasons = listStaleReasons(
      { category: check, source_date: list.source_date, synced_at: list.synced_at },
      at,
    );
    return reasons.length > 0
      ? [{ id: list.id, source_date: list.source_date, synced_at: list.synced_at, reasons }]
      : [];
  });
}
