/**
 * Whether a freshly parsed list looks like the list it replaces, across runs, not only against the
 * last run: a sync that passes these checks publishes the list; one that fails them holds the file
 * for an operator's review (lib/sync/review.ts) and the list keeps its last good data.
 *
 * - **Counts against a baseline.** The individuals are compared with the list's BASELINE, the count
 *   an operator last accepted (or, before any acceptance, the count in force when the list was
 *   first synced), not with the last run. A run within bounds does not move the baseline: if it
 *   did, cuts of 9 % a run would each pass (730 → 664 → 604). Slow real drift past a bound thus
 *   needs one operator look every so often, which is the point.
 * - **Content for the same entries.** Entries whose id is in both lists should mostly keep their
 *   names: publishers amend a handful a day, so a file where many names changed is garbled or
 *   re-keyed. And a sample of the last good list's designees must still parse with a name, and
 *   with dates of birth where they had some.
 */
import { createHash } from 'node:crypto';
import type { ListedPerson } from '../watchlists/types.ts';

/** The largest cumulative fall of individuals below the baseline (10 %). */
export const MAX_DROP_FROM_BASELINE = 0.1;
/**
 * The largest growth above the baseline (25 %, and more than `GROWTH_SLACK` people, so a list of
 * 12 may gain a few). Publishers' largest real additions (a new sanctions round) are a few hundred
 * entries on lists of thousands; a file several times too large is a duplicated or wrong file.
 */
export const MAX_GROWTH_FROM_BASELINE = 0.25;
export const GROWTH_SLACK = 25;
/** The largest share of entries present before and after whose primary name changed (10 %)... */
export const MAX_NAME_CHANGE_SHARE = 0.1;
/** ...counted only from this many changed names, so a small list may rename a few entries. */
export const NAME_CHANGE_MIN = 5;
/** How many of the last good list's designees are followed into the new file. */
export const DESIGNEE_SAMPLE = 100;
/** The largest share of sampled designees (still listed) that may lose their name or dates. */
export const MAX_SAMPLE_LOST_SHARE = 0.1;

export interface SanityInput {
  /** The count an operator last accepted (or the count in force at the first sync). */
  baseline: number;
  /** The last good list's people, as parsed. */
  previous: readonly ListedPerson[];
  candidate: readonly ListedPerson[];
  /** An operator confirmed, for this run, that the count changed for real (`--accept-drop`). */
  countAccepted?: boolean;
}

/** What was compared, for the refusal, the held file and `sync-review`. */
export interface SanitySummary {
  baseline: number;
  previous: number;
  candidate: number;
  /** Entry ids in both lists. */
  common: number;
  names_changed: number;
  sampled: number;
  sample_lost: number;
  /** Up to 10 entries whose primary name changed: id, before, after (public list data). */
  name_changes: { entity_id: string; before: string; after: string }[];
  /** Up to 10 sampled designees that lost their name or dates. */
  sample_losses: { entity_id: string; primary_name: string; lost: string }[];
}

export type SanityVerdict =
  | { ok: true; summary: SanitySummary }
  | { ok: false; reasons: string[]; summary: SanitySummary };

function normalisedName(name: string): string {
  return name.normalize('NFKC').toLowerCase().replace(/\s+/g, ' ').trim();
}

function percent(share: number): string {
  return `${Math.round(share * 1000) / 10}%`;
}

/** A fixed sample of designees with a date of birth: the same ones every run (by id hash). */
function sampleDesignees(people: readonly ListedPerson[]): ListedPerson[] {
  const rank = (person: ListedPerson) => createHash('sha1').update(person.entity_id).digest('hex');
  return people
    .filter((person) => person.dobs.length > 0)
    .map((person) => ({ person, rank: rank(person) }))
    .sort((a, b) => (a.rank < b.rank ? -1 : a.rank > b.rank ? 1 : 0))
    .slice(0, DESIGNEE_SAMPLE)
    .map((entry) => entry.person);
}

export function checkSanity(input: SanityInput): SanityVerdict {
  const { baseline, previous, candidate } = input;
  const reasons: string[] = [];
  const now = candidate.length;
  if (now === 0) reasons.push('no individuals in the downloaded file');
  if (!input.countAccepted && baseline > 0 && now > 0) {
    if (now < baseline * (1 - MAX_DROP_FROM_BASELINE)) {
      reasons.push(
        `individuals fell to ${now} from the baseline of ${baseline} (${percent(1 - now / baseline)}; ` +
          `more than ${percent(MAX_DROP_FROM_BASELINE)}): likely a truncated or partial file`,
      );
    }
    if (now > baseline * (1 + MAX_GROWTH_FROM_BASELINE) && now - baseline > GROWTH_SLACK) {
      reasons.push(
        `individuals grew to ${now} from the baseline of ${baseline} (+${percent(now / baseline - 1)}; ` +
          `more than +${percent(MAX_GROWTH_FROM_BASELINE)}): likely a duplicated or wrong file`,
      );
    }
  }

  const after = new Map(candidate.map((person) => [person.entity_id, person]));
  let common = 0;
  const nameChanges: SanitySummary['name_changes'] = [];
  let namesChanged = 0;
  for (const before of previous) {
    const person = after.get(before.entity_id);
    if (!person) continue;
    common += 1;
    if (normalisedName(person.primary_name) !== normalisedName(before.primary_name)) {
      namesChanged += 1;
      if (nameChanges.length < 10) {
        nameChanges.push({
          entity_id: before.entity_id,
          before: before.primary_name,
          after: person.primary_name,
        });
      }
    }
  }
  if (common > 0 && namesChanged >= NAME_CHANGE_MIN && namesChanged / common > MAX_NAME_CHANGE_SHARE) {
    reasons.push(
      `${namesChanged} of ${common} entries kept their id but changed their name (${percent(namesChanged / common)}; ` +
        `more than ${percent(MAX_NAME_CHANGE_SHARE)}): likely a garbled file`,
    );
  }

  let sampled = 0;
  const losses: SanitySummary['sample_losses'] = [];
  let lost = 0;
  for (const before of sampleDesignees(previous)) {
    const person = after.get(before.entity_id);
    // A delisted designee is the count check's business, not a parse failure.
    if (!person) continue;
    sampled += 1;
    const missing = !person.primary_name.trim()
      ? 'name'
      : person.dobs.length === 0
        ? 'dates of birth'
        : undefined;
    if (missing) {
      lost += 1;
      if (losses.length < 10)
        losses.push({ entity_id: before.entity_id, primary_name: before.primary_name, lost: missing });
    }
  }
  if (sampled > 0 && lost / sampled > MAX_SAMPLE_LOST_SHARE) {
    reasons.push(
      `${lost} of ${sampled} sampled designees of the last good list no longer parse with a name and ` +
        `dates of birth (more than ${percent(MAX_SAMPLE_LOST_SHARE)}): likely a changed or garbled format`,
    );
  }

  const summary: SanitySummary = {
    baseline,
    previous: previous.length,
    candidate: now,
    common,
    names_changed: namesChanged,
    sampled,
    sample_lost: lost,
    name_changes: nameChanges,
    sample_losses: losses,
  };
  return reasons.length === 0 ? { ok: true, summary } : { ok: false, reasons, summary };
}
