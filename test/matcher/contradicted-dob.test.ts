import { describe, expect, it } from 'vitest';
import { createMatcher } from '../../lib/matcher/screen.ts';
import type { ListedPerson } from '../../lib/watchlists/types.ts';
import { PEOPLE, snapshot } from './fixtures.ts';

/**
 * A person listed twice and not linked: dated on OFAC, and again without any date of birth on
 * another list (what the UK FCDO transcription and Canada's list often give).
 */
const dated: ListedPerson = {
  list_id: 'ofac_sdn',
  entity_id: '9001',
  primary_name: 'KARIMOV, Rustam Alisherovich',
  names: [{ name: 'KARIMOV, Rustam Alisherovich', strength: 'primary' }],
  dobs: [{ kind: 'date', date: '1968-04-12' }],
  nationalities: ['Uzbekistan'],
  locations: [],
  programmes: ['RUSSIA-EO14024'],
};
const undated: ListedPerson = {
  ...dated,
  list_id: 'un_sc',
  entity_id: '77',
  primary_name: 'Rustam Alisherovich KARIMOV',
  names: [{ name: 'Rustam Alisherovich KARIMOV', strength: 'primary' }],
  dobs: [],
  nationalities: [],
};
const matcher = createMatcher(snapshot([...PEOPLE, dated, undated]));

describe('a contradicting date of birth wins over a DOB-less duplicate', () => {
  it('caps the undated listing of the same name at MEDIUM, and says why', () => {
    const result = matcher.screen({ name: 'Rustam Alisherovich Karimov', dob: '1988-04-12' }, ['sanctions']);
    const sanctions = result.sanctions_result;
    expect(sanctions?.risk_level).toBe('MEDIUM');
    expect(sanctions?.is_sanctioned).toBe(false);
    const capped = sanctions?.matches.find((m) => m.list_id === 'un_sc');
    expect(capped?.risk_level).toBe('MEDIUM');
    expect(capped?.explanation.dob.detail).toMatch(/contradicts.*KARIMOV, Rustam Alisherovich.*OFAC/);
    expect(sanctions?.narrative).toMatch(/capped at MEDIUM/);
    expect(sanctions?.matches.find((m) => m.list_id === 'ofac_sdn')?.risk_level).toBe('LOW');
  });

  it('leaves the undated listing HIGH when no DOB is given, or the given one agrees', () => {
    const noDob = matcher.screen({ name: 'Rustam Alisherovich Karimov' }, ['sanctions']);
    expect(noDob.sanctions_result?.risk_level).toBe('HIGH');
    const agreeing = matcher.screen({ name: 'Rustam Alisherovich Karimov', dob: '1968-04-12' }, [
      'sanctions',
    ]);
    expect(agreeing.sanctions_result?.matches.find((m) => m.list_id === 'un_sc')?.risk_level).toBe('HIGH');
    expect(agreeing.sanctions_result?.risk_level).toBe('CRITICAL');
  });

  it('does not cap an undated listing of another name', () => {
    const brother: ListedPerson = {
      ...undated,
      entity_id: '78',
      primary_name: 'Bakhtiyor Alisherovich KARIMOV',
      names: [{ name: 'Bakhtiyor Alisherovich KARIMOV', strength: 'primary' }],
    };
    const family = createMatcher(snapshot([...PEOPLE, dated, brother]));
    const result = family.screen({ name: 'Bakhtiyor Alisherovich Karimov', dob: '1988-04-12' }, [
      'sanctions',
    ]);
    expect(result.sanctions_result?.matches.find((m) => m.entity_id === '78')?.risk_level).toBe('HIGH');
    expect(result.sanctions_result?.narrative).not.toMatch(/capped at MEDIUM/);
  });
});

describe('a contradicting nationality counts against a PEP listed without a date of birth', () => {
  it('holds an exact name to MEDIUM when the nationality given is not the office country', () => {
    const minister: ListedPerson = {
      list_id: 'us_executive_pep',
      entity_id: 'pep-1',
      primary_name: 'Hamdullah MOHIB',
      names: [{ name: 'Hamdullah MOHIB', strength: 'primary' }],
      dobs: [],
      nationalities: ['Afghanistan'],
      locations: ['Afghanistan'],
      programmes: [],
      pep: { tier: 1, current: true, category: 'diplomat', position: 'Ambassador to the US, Afghanistan' },
    };
    const peps = createMatcher(snapshot([...PEOPLE, minister]));
    const own = peps.screen({ name: 'Hamdullah Mohib', nationality: 'Afghanistan' }, ['pep']).pep_result;
    expect(own?.risk_level).toBe('HIGH');
    const other = peps.screen({ name: 'Hamdullah Mohib', nationality: 'Japan' }, ['pep']).pep_result;
    expect(other?.risk_level).toBe('MEDIUM');
    expect(other?.narrative).toMatch(/nationality Japan differs from the listed Afghanistan/);
  });
});
