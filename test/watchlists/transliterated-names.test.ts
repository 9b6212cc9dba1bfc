import { describe, expect, it } from 'vitest';
import { nameParts } from '../../lib/watchlists/linking.ts';
import { newPerson } from '../../lib/watchlists/listed-person.ts';
import {
  conflictingFacts,
  transliteratedPart,
  transliterationKeys,
} from '../../lib/watchlists/transliterated-names.ts';

const key = (name: string) => transliterationKeys(nameParts(name))[0];

describe('names compared under transliteration', () => {
  it('gives the romanisations of one Russian or Arabic name one key', () => {
    expect(transliteratedPart('ILINYKH')).toBe(transliteratedPart('ILYNIKH'));
    expect(new Set(['Alexey', 'Aleksey', 'Alexei', 'Aleksei'].map(transliteratedPart)).size).toBe(1);
    expect(new Set(['Dmitriy', 'Dmitrii', 'Dmitry'].map(transliteratedPart)).size).toBe(1);
    expect(new Set(['Mohammed', 'Muhammad', 'Mohamed'].map(transliteratedPart)).size).toBe(1);
    expect(transliteratedPart('Yousef')).toBe(transliteratedPart('Yusuf'));
    expect(key('ILINYKH Aleksey Viktorovich')).toBe(key('Alexey Viktorovich ILYNIKH'));
  });

  it('keeps apart what the romanisations do not blur', () => {
    expect(transliteratedPart('Ivanov')).not.toBe(transliteratedPart('Ivanova'));
    expect(transliteratedPart('Petrov')).not.toBe(transliteratedPart('Ivanov'));
    expect(key('Ivan Petrov')).not.toBe(key('Ivan Petrov Sidorov'));
  });

  it('also keys a name without its patronymic, and never a name in another script', () => {
    expect(transliterationKeys(nameParts('Aleksey Viktorovich Ilinykh'))).toContain(key('ILYNIKH Alexey'));
    expect(transliterationKeys(nameParts('Алексей Ильиных'))).toEqual([]);
  });

  it('finds a conflict in nationality or gender, not in a fact one side lacks', () => {
    const a = newPerson('eu_fsf', 'a', 'Ivan Petrov');
    const b = newPerson('ca_sema', 'b', 'Ivan Petrov');
    expect(conflictingFacts(a, b)).toBe(false);
    a.nationalities = ['Russia'];
    b.nationalities = ['Russian Federation', 'Ukraine'];
    expect(conflictingFacts(a, b)).toBe(false);
    b.nationalities = ['Belarus'];
    expect(conflictingFacts(a, b)).toBe(true);
    b.nationalities = [];
    a.gender = 'Male';
    b.gender = 'female';
    expect(conflictingFacts(a, b)).toBe(true);
  });
});
