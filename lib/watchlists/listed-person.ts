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
