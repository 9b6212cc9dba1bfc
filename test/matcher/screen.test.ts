import { describe, expect, it } from 'vitest';
import { createMatcher } from '../../lib/matcher/screen.ts';
import { CHECK_TYPES } from '../../lib/watchlists/types.ts';
import { snapshot } from './fixtures.ts';

const matcher = createMatcher(snapshot());

describe('createMatcher().screen', () => {
  it('rates a listed name with a matching DOB CRITICAL and explains every field', () => {
    const result = matcher.screen(
      { name: 'Vladimir Putin', dob: '1952-10-07', nationality: 'Russian' },
      CHECK_TYPES,
    );
    expect(result.risk_level).toBe('CRITICAL');
    const sanctions = result.sanctions_result!;
    expect(sanctions.is_sanctioned).toBe(true);
    const top = sanctions.matches[0];
    expect(top).toMatchObject({
      list_id: 'ofac_sdn',
      entity_id: '35096',
      primary_name: 'PUTIN, Vladimir Vladimirovich',
    });
    expect(top.explanation.name.status).toBe('matched');
    expect(top.explanation.dob.status).toBe('matched');
    expect(top.explanation.nationality.status).toBe('matched');
    expect(top.dobs).toEqual(['1952-10-07']);
    expect(top.score).toBeGreaterThan(0.9);
    expect(sanctions.narrative).toContain('CRITICAL');
    expect(sanctions.narrative).toContain('PUTIN, Vladimir Vladimirovich');
  });

  it('finds a Cyrillic query and rates it HIGH without a DOB', () => {
    const result = matcher.screen({ name: 'Путин Владимир' }, ['sanctions']);
    expect(result.sanctions_result!.matches[0].entity_id).toBe('35096');
    expect(result.risk_level).toBe('HIGH');
  });

  it('rates a namesake with a different DOB LOW: likely a different person', () => {
    const result = matcher.screen({ name: 'Vladimir Putin', dob: '1984-02-19' }, ['sanctions']);
    expect(result.sanctions_result!.matches[0].explanation.dob.status).toBe('mismatched');
    expect(result.risk_level).toBe('LOW');
    expect(result.sanctions_result!.is_sanctioned).toBe(false);
  });

  it('does not alert on a shared common given name alone', () => {
    const result = matcher.screen({ name: 'Mohammed Jones' }, CHECK_TYPES);
    expect(['CLEAR', 'LOW']).toContain(result.risk_level);
  });

  it('screens the alias as well as the name', () => {
    const result = matcher.screen({ name: 'Jane Doe', alias: 'Osama bin Laden' }, ['sanctions']);
    const top = result.sanctions_result!.matches[0];
    expect(top.entity_id).toBe('6908048');
    expect(top.matched_input).toBe('alias');
  });

  it('reports a tier-1 PEP with tier, label and category', () => {
    const pep = matcher.screen({ name: 'Bernie Sanders' }, ['pep']).pep_result!;
    expect(pep).toMatchObject({ risk_level: 'HIGH', is_pep: true, tier: 1, category: 'legislator' });
    expect(pep.tier_label).toContain('Tier 1');
  });

  it('rates a strong match on a former office holder MEDIUM, despite a missing middle name', () => {
    const pep = matcher.screen({ name: 'Theodore Harwood' }, ['pep']).pep_result!;
    expect(pep.matches[0].entity_id).toBe('H000001');
    expect(pep.risk_level).toBe('MEDIUM');
    expect(pep.tier).toBe(3);
  });

  it('finds a listed person under a nickname', () => {
    const pep = matcher.screen({ name: 'Ted Harwood' }, ['pep']).pep_result!;
    expect(pep.matches[0].entity_id).toBe('H000001');
    expect(pep.matches[0].explanation.name.detail).toContain('ted≈theodore');
  });

  it('never rates a criminal-list match CRITICAL and splits hits by source', () => {
    const criminal = matcher.screen({ name: 'Ruja Ignatova', dob: '1980-05-30' }, ['criminal'])
      .criminal_result!;
    expect(criminal.risk_level).toBe('HIGH');
    expect(criminal.fbi_hits[0].url).toContain('fbi.gov');
    expect(criminal.interpol_hits).toEqual([]);
    expect(criminal.narrative).toContain('allegations');
  });

  it('returns null for excluded check types and takes the level over the checks performed', () => {
    const result = matcher.screen({ name: 'Vladimir Putin', dob: '1952-10-07' }, ['pep', 'criminal']);
    expect(result.sanctions_result).toBeNull();
    expect(result.risk_level).toBe('CLEAR');
    expect(result.pep_result!.is_pep).toBe(false);
    expect(result.pep_result!.tier).toBeNull();
  });

  it('gives a CLEAR narrative naming the lists checked and their source dates', () => {
    const result = matcher.screen({ name: 'Zuzana Kowalczyk-Brown' }, CHECK_TYPES);
    expect(result.risk_level).toBe('CLEAR');
    expect(result.sanctions_result!.matches).toEqual([]);
    expect(result.sanctions_result!.narrative).toBe(
      'CLEAR: no sanctions match for the subject on OFAC SDN (source date 2024-05-03), UN Security Council Consolidated List (source date 2026-02-27).',
    );
    expect(result.criminal_result!.narrative).toContain('INTERPOL Red Notices (source date 2020-12-01)');
  });

  it('does not let a low-quality alias alone make a strong match', () => {
    const result = matcher.screen({ name: 'Abu Abdallah', dob: '1957-03-10' }, ['sanctions']);
    const top = result.sanctions_result!.matches[0];
    expect(top.explanation.name.detail).toContain('low-quality alias');
    expect(top.risk_level).not.toBe('CRITICAL');
  });
});
