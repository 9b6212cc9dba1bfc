/**
 * Assembling `ListedPerson` records: every parser adds names, places and programmes through these
 * so duplicates are dropped the same way on every list and the strongest reading of a name wins.
 */
import type { ListedName, ListedPerson } from './types.ts';

const STRENGTH_ORDER: Record<ListedName['strength'], number> = { primary: 0, strong: 1, weak: 2 };

/** Collapses runs of whitespace (lists wrap long names over lines). */
export function cleanText(text: string | undefined | null): string {
  return (text ?? '').replace(/\s+/g, ' ').trim();
}

function nameKey(name: string): string {
  return name.toLowerCase().replace(/\s+/g, ' ').trim();
}

/** Adds a name unless already present; a repeated name keeps the stronger of its two strengths. */
export function addName(
  names: ListedName[],
  raw: string | undefined | null,
  strength: ListedName['strength'],
): void {
  const name = cleanText(raw);
  if (!name) return;
  const key = nameKey(name);
  const existing = names.find((n) => nameKey(n.name) === key);
  if (!existing) {
    names.push({ name, strength });
    return;
  }
  if (STRENGTH_ORDER[strength] < STRENGTH_ORDER[existing.strength]) existing.strength = strength;
}

/** Adds trimmed, non-empty values not already present (case-insensitive). */
export function addUnique(target: string[], ...values: (string | undefined | null)[]): void {
  for (const raw of values) {
    const value = cleanText(raw);
    if (!value) continue;
    const lower = value.toLowerCase();
    if (!target.some((v) => v.toLowerCase() === lower)) target.push(value);
  }
}

/** Splits "Culiacan, Sinaloa, Mexico" into its places, so each can corroborate a stated location. */
export function splitPlaces(text: string | undefined | null): string[] {
  return cleanText(text)
    .split(/\s*,\s*/)
    .map((part) => part.replace(/\.$/, '').trim())
    .filter((part) => part && part !== '-');
}

/** Starts a person with the required arrays empty; parsers fill them in. */
export function newPerson(
  list_id: ListedPerson['list_id'],
  entity_id: string,
  primary_name: string,
): ListedPerson {
  const person: ListedPerson = {
    list_id,
    entity_id,
    primary_name: cleanText(primary_name),
    names: [],
    dobs: [],
    nationalities: [],
    locations: [],
    programmes: [],
  };
  addName(person.names, primary_name, 'primary');
  return person;
}

/**
 * Remarks longer than this are cut in the snapshot. They are context for an analyst (the OFSI
 * statement of reasons runs to pages); the full text stays in the source file, and a third of the
 * snapshot's size would otherwise be prose read on every cold start.
 */
export const REMARKS_MAX_CHARS = 600;

/** Drops empty arrays and absent fields (about a third of the people have no DOB or place). */
export function compactPerson(person: ListedPerson): Partial<ListedPerson> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(person)) {
    if (value === undefined || value === null || value === '') continue;
    if (Array.isArray(value) && value.length === 0) continue;
    out[key] = value;
  }
  if (person.remarks && person.remarks.length > REMARKS_MAX_CHARS) {
    out.remarks = `${person.remarks.slice(0, REMARKS_MAX_CHARS - 1).trimEnd()}…`;
  }
  return out as Partial<ListedPerson>;
}

const PERSON_ARRAYS = ['names', 'dobs', 'nationalities', 'locations', 'programmes'] as const;

/** Restores the empty arrays `compactPerson` left out. */
export function restorePerson(person: ListedPerson): ListedPerson {
  for (const key of PERSON_ARRAYS) if (!person[key]) person[key] = [];
  return person;
}
