import { foldText, nameParts } from '../matcher/normalise.ts';
import { queryCountry } from '../matcher/query-country.ts';
import { normaliseText, type Subject } from './subject.ts';

/**
 * A person as the matcher reads one: the folding behind the one-monitored-client-per-person
 * claims (lib/monitoring/client-person.ts, docs/monitoring.md "One monitored client per person")
 * and behind the decided false positives an ad-hoc screen remembers
 * (./remembered-false-positives.ts), so that both call the same input the same person.
 *
 * The name is folded the way the matcher folds every name it compares (lib/matcher/normalise.ts
 * `nameParts`: `SURNAME, Given` turned round, other scripts transliterated, case, diacritics and
 * punctuation folded, titles dropped), and its tokens are sorted, because the matcher scores a
 * name whatever the order of its parts. The nationality is the country it names
 * (lib/matcher/query-country.ts: "Belgian", "Belgium" and "BE" alike), else its folded text.
 */

/** A person as the claims compare them: folded name, and what else tells people apart (or null). */
export interface FoldedPerson {
  name: string;
  dob: string | null;
  nationality: string | null;
}

/** The name as the matcher reads it, its parts sorted; the narrower normalisation when nothing is left. */
export function foldedName(name: string): string {
  const parts = nameParts(name).map((part) => part.text);
  return parts.length > 0 ? parts.sort().join(' ') : normaliseText(name);
}

/** The country a nationality names, else its folded words; null when none is given. */
export function foldedNationality(nationality: string | undefined | null): string | null {
  if (!nationality?.trim()) return null;
  const country = queryCountry(nationality);
  if (country) return `country:${country}`;
  const words = foldText(nationality)
    .split(/[^a-z0-9]+/)
    .filter(Boolean)
    .join(' ');
  return words || normaliseText(nationality);
}

export function foldPerson(subject: Pick<Subject, 'name' | 'dob' | 'nationality'>): FoldedPerson {
  return {
    name: foldedName(subject.name),
    dob: subject.dob?.trim() || null,
    nationality: foldedNationality(subject.nationality),
  };
}
