import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type FoldedPerson,
  foldedName,
  foldedNationality,
  foldPerson,
  personClaimPlan,
} from '../../lib/monitoring/client-person.ts';

/**
 * Who a monitored client is, as the matcher reads a person, and the claim plan that keeps one
 * client per person: the plan is checked against the rule it must hold, over every combination of
 * name, date of birth and nationality given or left out.
 */

describe('the person a registration names', () => {
  it('folds the name as the matcher does, whatever the order of its parts', () => {
    const folded = foldedName('Noref Registrant Qwv');

    expect(foldedName('Noréf Registrant Qwv')).toBe(folded);
    expect(foldedName('Qwv Noref Registrant')).toBe(folded);
    expect(foldedName('REGISTRANT, Noref-Qwv')).toBe(folded);
    expect(foldedName('  noref   registrant qwv ')).toBe(folded);
    expect(foldedName('Noref Registrant Qwx')).not.toBe(folded);
  });

  it('reads a nationality as the country it names', () => {
    expect(foldedNationality('Belgian')).toBe(foldedNationality('Belgium'));
    expect(foldedNationality('BE')).toBe(foldedNationality('belgian'));
    expect(foldedNationality('Belgian')).not.toBe(foldedNationality('French'));
    expect(foldedNationality('  ')).toBeNull();
    expect(foldedNationality(undefined)).toBeNull();
  });

  it('keeps a date of birth as given, and none as none', () => {
    expect(foldPerson({ name: 'Ann Lee', dob: '1980-01-02' }).dob).toBe('1980-01-02');
    expect(foldPerson({ name: 'Ann Lee' }).dob).toBeNull();
  });
});

/** The rule: the same folded name, and each of dob and nationality the same or left out by one. */
function samePerson(a: FoldedPerson, b: FoldedPerson): boolean {
  const agree = (x: string | null, y: string | null) => x === null || y === null || x === y;
  return a.name === b.name && agree(a.dob, b.dob) && agree(a.nationality, b.nationality);
}

interface ClaimItem {
  client?: string;
  sets: Map<string, Set<string>>;
}

/**
 * The claim items as the store keeps them, with each registration's writes and conditions as
 * client-claim-table.ts sends them: true when every condition held (and the writes were made).
 */
function registerIn(items: Map<string, ClaimItem>, clientId: string, person: FoldedPerson): boolean {
  const plan = personClaimPlan(person);
  const item = (hash: string): ClaimItem => items.get(hash) ?? { sets: new Map() };
  const holds = plan.every((step) => {
    const found = item(step.hash);
    return !found.client && step.mustBeEmpty.every((set) => (found.sets.get(set)?.size ?? 0) === 0);
  });
  if (!holds) return false;
  for (const step of plan) {
    const found = item(step.hash);
    if (step.holds === 'client') found.client = clientId;
    else found.sets.set(step.holds, new Set([...(found.sets.get(step.holds) ?? []), clientId]));
    items.set(step.hash, found);
  }
  return true;
}

const person = fc.record({
  name: fc.constantFrom('ann lee', 'bo chan'),
  dob: fc.constantFrom(null, '1980-01-02', '1991-07-08'),
  nationality: fc.constantFrom(null, 'country:Belgium', 'country:France'),
});

describe('the claim plan', () => {
  it('refuses a second registration exactly when it is the same person as the first', () => {
    fc.assert(
      fc.property(person, person, (first, second) => {
        const items = new Map<string, ClaimItem>();
        expect(registerIn(items, 'first', first)).toBe(true);

        expect(registerIn(items, 'second', second)).toBe(!samePerson(first, second));
      }),
      { numRuns: 500 },
    );
  });

  it('never lets two of the same person in, whatever the order of many registrations', () => {
    fc.assert(
      fc.property(fc.array(person, { minLength: 1, maxLength: 12 }), (people) => {
        const items = new Map<string, ClaimItem>();
        const registered: FoldedPerson[] = [];
        for (const [i, p] of people.entries()) {
          const allowed = registered.every((r) => !samePerson(r, p));
          expect(registerIn(items, `c${i}`, p)).toBe(allowed);
          if (allowed) registered.push(p);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('writes the name’s own item in every registration, so registrations of one name are serialised', () => {
    const nameItem = personClaimPlan({ name: 'ann lee', dob: null, nationality: null })[0].hash;
    for (const dob of [null, '1980-01-02'])
      for (const nationality of [null, 'country:Belgium'])
        expect(personClaimPlan({ name: 'ann lee', dob, nationality }).map((s) => s.hash)).toContain(nameItem);
  });
});
