import { describe, expect, it } from 'vitest';
import { subjectHash } from '../../lib/screening/subject.ts';

const all = ['sanctions', 'pep', 'criminal'] as const;

describe('subject hash of the rescreen window', () => {
  it('ignores case, spacing and the order the types were given in', () => {
    const a = subjectHash({ name: 'Jane  DOE', nationality: 'British ' }, all);
    const b = subjectHash({ name: 'jane doe', nationality: 'british' }, ['criminal', 'sanctions', 'pep']);
    expect(a).toBe(b);
  });

  it('tells subjects apart by every field and by the checks performed', () => {
    const base = subjectHash({ name: 'Jane Doe' }, all);
    const variants = [
      subjectHash({ name: 'Jane Doe', dob: '1980-01-01' }, all),
      subjectHash({ name: 'Jane Doe', nationality: 'French' }, all),
      subjectHash({ name: 'Jane Doe', location: 'Paris' }, all),
      subjectHash({ name: 'Jane Doe', alias: 'JD' }, all),
      subjectHash({ name: 'Jane Doe' }, ['pep']),
      subjectHash({ name: 'Jane Dough' }, all),
    ];
    expect(new Set([base, ...variants]).size).toBe(variants.length + 1);
  });

  it('does not confuse a value moved from one field to another', () => {
    expect(subjectHash({ name: 'Jane Doe', nationality: 'Paris' }, all)).not.toBe(
      subjectHash({ name: 'Jane Doe', location: 'Paris' }, all),
    );
  });

  it('keeps the name out of the key', () => {
    expect(subjectHash({ name: 'Jane Doe' }, all)).not.toMatch(/jane|doe/i);
  });
});
