import { describe, expect, it } from 'vitest';
import { matchRisk, nameBand } from '../../lib/matcher/risk.ts';

describe('matchRisk', () => {
  it('gives CRITICAL only to a strong sanctions name match with a corroborating DOB', () => {
    expect(matchRisk({ check: 'sanctions', band: 'strong', dob: 'matched', nationality: 'unknown' })).toBe(
      'CRITICAL',
    );
    expect(matchRisk({ check: 'sanctions', band: 'strong', dob: 'unknown', nationality: 'matched' })).toBe(
      'HIGH',
    );
    expect(matchRisk({ check: 'sanctions', band: 'strong', dob: 'near', nationality: 'matched' })).toBe(
      'HIGH',
    );
    expect(matchRisk({ check: 'sanctions', band: 'partial', dob: 'matched', nationality: 'matched' })).toBe(
      'HIGH',
    );
  });

  it('treats a contradicting DOB as likely a different person', () => {
    for (const check of ['sanctions', 'pep', 'criminal'] as const) {
      expect(matchRisk({ check, band: 'strong', dob: 'mismatched', nationality: 'matched', tier: 1 })).toBe(
        'LOW',
      );
    }
  });

  it('rates partial sanctions matches MEDIUM and weak ones LOW', () => {
    expect(matchRisk({ check: 'sanctions', band: 'partial', dob: 'unknown', nationality: 'unknown' })).toBe(
      'MEDIUM',
    );
    expect(matchRisk({ check: 'sanctions', band: 'weak', dob: 'unknown', nationality: 'unknown' })).toBe(
      'LOW',
    );
  });

  it('never rates a criminal match CRITICAL', () => {
    expect(matchRisk({ check: 'criminal', band: 'strong', dob: 'matched', nationality: 'matched' })).toBe(
      'HIGH',
    );
  });

  it('rates a strong tier-1 PEP match HIGH and former office holders MEDIUM', () => {
    expect(matchRisk({ check: 'pep', band: 'strong', dob: 'unknown', nationality: 'unknown', tier: 1 })).toBe(
      'HIGH',
    );
    expect(matchRisk({ check: 'pep', band: 'strong', dob: 'matched', nationality: 'unknown', tier: 2 })).toBe(
      'MEDIUM',
    );
    expect(matchRisk({ check: 'pep', band: 'weak', dob: 'matched', nationality: 'unknown', tier: 1 })).toBe(
      'LOW',
    );
  });

  it('lowers the level one step when the nationality contradicts', () => {
    expect(matchRisk({ check: 'sanctions', band: 'strong', dob: 'matched', nationality: 'mismatched' })).toBe(
      'HIGH',
    );
    expect(matchRisk({ check: 'sanctions', band: 'weak', dob: 'unknown', nationality: 'mismatched' })).toBe(
      'LOW',
    );
  });
});

describe('nameBand', () => {
  it('caps matches through low-quality aliases at partial', () => {
    expect(nameBand(0.97, false)).toBe('strong');
    expect(nameBand(0.97, true)).toBe('partial');
    expect(nameBand(0.65, false)).toBeUndefined();
  });
});
