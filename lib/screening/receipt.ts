/**
 * A screen's receipt: which lists it was matched against and by which matcher, stored with the
 * screen when it is made (docs/table-design.md, "Evidence is data"). It is what lets an examiner's
 * question "show me this customer was screened against the lists in force that day" be answered
 * from the record, and what POST /screens/{id}/replay re-runs.
 */
import * as v from 'valibot';
import { MATCHING_CONSTANTS, type MatchingConstants } from '../matcher/matching-config.ts';
import type { Matcher } from '../matcher/screen.ts';
import { MATCHER_VERSION } from '../matcher/version.ts';
import { CHECK_TYPES, type CheckType } from '../watchlists/types.ts';

/** One list of the snapshot, as it stood when the screen was made. */
export interface ReceiptList {
  id: string;
  /** The publisher's date of the data; null when the publisher states none. */
  source_date: string | null;
  /** When this list's data was parsed into a snapshot (ISO 8601 UTC). */
  synced_at: string;
  /**
   * SHA-256 of the list's files (lib/watchlists/content-hash.ts): those a sync downloaded, or for
   * bundled data those under data/; null only on screens made before bundled lists were hashed.
   */
  content_hash: string | null;
  individual_count: number;
}

/** The effective matching configuration: the check types run and the constants that decide results. */
export interface MatchingConfig extends MatchingConstants {
  check_types: CheckType[];
}

export interface ScreenReceipt {
  snapshot: {
    /**
     * The snapshot store's version (a local file name, an S3 object version) or `bundled-<hash>`
     * for the snapshot shipped with the code.
     */
    version: string;
    /** When the snapshot was compiled (ISO 8601 UTC). */
    built_at: string;
    lists: ReceiptList[];
  };
  matcher: {
    /** `matcher-<hash>` of the matcher's sources (lib/matcher/version.ts). */
    version: string;
    config: MatchingConfig;
  };
  /**
   * The tenant's screening policy the screen was made under (lib/policy/): its version, which a
   * replay applies again. Absent on screens made before policies: version 0, the service's own.
   */
  policy?: { version: number };
}

/** The receipt of a screen `matcher` makes now, running `types`. */
export function screenReceipt(
  matcher: Pick<Matcher, 'snapshot' | 'lists'>,
  types: readonly CheckType[],
  policyVersion = 0,
): ScreenReceipt {
  return {
    snapshot: {
      version: matcher.snapshot.version,
      built_at: matcher.snapshot.built_at,
      lists: receiptListsOf(matcher),
    },
    matcher: { version: MATCHER_VERSION, config: { check_types: [...types], ...MATCHING_CONSTANTS } },
    policy: { version: policyVersion },
  };
}

/** The policy version a screen was made under: its receipt's, or 0 (the service's) before policies. */
export const policyVersionOf = (receipt: Pick<ScreenReceipt, 'policy'> | undefined): number =>
  receipt?.policy?.version ?? 0;

/** The lists of the matcher's snapshot, as a receipt records them. */
export function receiptListsOf(matcher: Pick<Matcher, 'lists'>): ReceiptList[] {
  return matcher.lists.map((list) => ({
    id: list.id,
    source_date: list.source_date,
    synced_at: list.synced_at,
    content_hash: list.content_hash ?? null,
    individual_count: list.individual_count,
  }));
}

const numbers = <const K extends string>(...names: K[]) =>
  v.object(
    Object.fromEntries(names.map((name) => [name, v.number()])) as Record<K, v.NumberSchema<undefined>>,
  );

/** The receipt as stored on a screen item (parsed on the way out of the table). */
export const ScreenReceiptSchema = v.object({
  snapshot: v.object({
    version: v.string(),
    built_at: v.string(),
    lists: v.array(
      v.object({
        id: v.string(),
        source_date: v.nullable(v.string()),
        synced_at: v.string(),
        content_hash: v.nullable(v.string()),
        individual_count: v.number(),
      }),
    ),
  }),
  matcher: v.object({
    version: v.string(),
    config: v.object({
      check_types: v.array(v.picklist(CHECK_TYPES)),
      max_matches_per_check: v.number(),
      name_bands: numbers('strong', 'partial', 'reporting_floor'),
      candidates: numbers('shortlist_per_check', 'min_evidence_share', 'opening_weight'),
      token_weights: numbers('particle', 'initial', 'patronymic', 'min_token', 'common_given', 'unseen'),
      corroboration_score_adjust: numbers('matched', 'near', 'unknown', 'mismatched'),
    }),
  }),
  policy: v.optional(v.object({ version: v.number() })),
});
