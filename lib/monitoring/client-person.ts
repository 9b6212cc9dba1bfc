import { createHash } from 'node:crypto';
import type { FoldedPerson } from '../screening/person-folding.ts';

/**
 * Who a monitored client is, as the matcher reads a person (docs/monitoring.md, "One monitored
 * client per person"), and the person claims that keep one client per person in a tenant.
 *
 * The name is folded the way the matcher folds every name it compares (lib/matcher/normalise.ts
 * `nameParts`: `SURNAME, Given` turned round, other scripts transliterated, case, diacritics and
 * punctuation folded, titles dropped), and its tokens are sorted, because the matcher scores a name
 * whatever the order of its parts: "Noréf Registrant Qwv" and "Qwv Noref Registrant" are one
 * person to it, so they are one client. The nationality is the country it names
 * (lib/matcher/query-country.ts: "Belgian", "Belgium" and "BE" alike), else its folded text.
 *
 * Two registrations are the same person when their folded names are equal and neither the date of
 * birth nor the nationality tells them apart: each is equal, or one of the two leaves it out. A
 * name given with a date of birth and the same name without one may be the same person, and
 * monitoring both would charge that person twice every cycle; two different dates of birth are
 * two people. Sameness is not transitive (the name alone is the same person as each of two
 * people with different dates of birth), so it is held by several claim items, written together
 * in the registration's one transaction ({@link personClaimPlan}).
 */

// The folding is screening's (lib/screening/person-folding.ts): the decided false positives an
// ad-hoc screen remembers fold a subject the same way.
export { type FoldedPerson, foldedName, foldedNationality, foldPerson } from '../screening/person-folding.ts';

/**
 * Where a client stands on one claim item: the item of its own person (`client`: the item names
 * it), or one of the sets of a more general item (the same name with less given) that list the
 * clients more specific than it: `with_both` (date of birth and nationality both given),
 * `dob_only`, `nationality_only` (kept on the name's own item, since a date of birth alone and a
 * nationality alone are the same person whichever they are).
 */
export type PersonHolding = 'client' | 'with_both' | 'dob_only' | 'nationality_only';

/** One write of a registration's person claims: the item (by its hash), how it is held, what must be empty. */
export interface PersonClaimStep {
  hash: string;
  holds: PersonHolding;
  /** The sets of the item that must be empty: clients more specific than this one, or sideways of it. */
  mustBeEmpty: readonly Exclude<PersonHolding, 'client'>[];
}

/** The key hash of a folded person; `person-v2` keeps it apart from the keys of the exact-text claims. */
export function foldedPersonHash(person: FoldedPerson): string {
  return createHash('sha256')
    .update(JSON.stringify(['person-v2', person.name, person.dob, person.nationality]))
    .digest('base64url');
}

/**
 * The claim items a registration of `person` writes, its own first. With N the folded name, D a
 * date of birth, C a nationality, and ∅ one left out:
 *
 * | person   | its own item (names it; must find empty)            | more general items (it joins the set; must find no client) |
 * |----------|-----------------------------------------------------|-------------------------------------------------------------|
 * | N ∅ ∅    | N∅∅: dob_only, nationality_only, with_both           | none                                                        |
 * | N D ∅    | ND∅: with_both                                       | N∅∅ `dob_only`, finding `nationality_only` empty            |
 * | N ∅ C    | N∅C: with_both                                       | N∅∅ `nationality_only`, finding `dob_only` empty            |
 * | N D C    | NDC: nothing                                         | ND∅, N∅C, N∅∅ `with_both`                                   |
 *
 * Every pair of the same person meets on one item, with one side's write conditioned on what the
 * other wrote there: equal people on their own item; a person and a more general one on the
 * general one's own item (its client, or the set it checks); a date of birth alone and a
 * nationality alone on the name's item. Every registration of a name writes the name's item N∅∅,
 * so DynamoDB serialises concurrent registrations of one name, and the transaction's conditions
 * decide with what is there.
 */
export function personClaimPlan(person: FoldedPerson): PersonClaimStep[] {
  const at = (dob: string | null, nationality: string | null) =>
    foldedPersonHash({ name: person.name, dob, nationality });
  const { dob, nationality } = person;
  if (dob === null && nationality === null)
    return [
      { hash: at(null, null), holds: 'client', mustBeEmpty: ['dob_only', 'nationality_only', 'with_both'] },
    ];
  if (nationality === null)
    return [
      { hash: at(dob, null), holds: 'client', mustBeEmpty: ['with_both'] },
      { hash: at(null, null), holds: 'dob_only', mustBeEmpty: ['nationality_only'] },
    ];
  if (dob === null)
    return [
      { hash: at(null, nationality), holds: 'client', mustBeEmpty: ['with_both'] },
      { hash: at(null, null), holds: 'nationality_only', mustBeEmpty: ['dob_only'] },
    ];
  return [
    { hash: at(dob, nationality), holds: 'client', mustBeEmpty: [] },
    { hash: at(dob, null), holds: 'with_both', mustBeEmpty: [] },
    { hash: at(null, nationality), holds: 'with_both', mustBeEmpty: [] },
    { hash: at(null, null), holds: 'with_both', mustBeEmpty: [] },
  ];
}
