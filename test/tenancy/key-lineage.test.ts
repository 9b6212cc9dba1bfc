import { describe, expect, it } from 'vitest';
import { lineageOfNewKey, OPERATIONS_ISSUER, sharedCredential } from '../../lib/tenancy/key-lineage.ts';

describe('key lineage: who besides its holder could hold a key', () => {
  const admin = { user_id: 'uadmin', role: 'admin' as const };

  it('an admin who adds or resets a user is the lineage; operations clears it; a rotation keeps it', () => {
    expect(lineageOfNewKey(admin, 'uanalyst')).toEqual(['uadmin']);
    expect(lineageOfNewKey(admin, 'uanalyst', ['uother'])).toEqual(['uadmin']);
    expect(lineageOfNewKey(OPERATIONS_ISSUER, 'uanalyst', ['uadmin'])).toEqual([]);
    expect(lineageOfNewKey({ user_id: 'uanalyst', role: 'analyst' }, 'uanalyst', ['uadmin'])).toEqual([
      'uadmin',
    ]);
  });

  it('refuses a pair where either could hold the other’s key, through any lineage given', () => {
    const author = (lineages: (string[] | undefined)[]) => ({ user_id: 'uanalyst', lineages });
    const approver = (lineages: (string[] | undefined)[]) => ({ user_id: 'uadmin', lineages });

    expect(sharedCredential(author([[], undefined]), approver([[]]))).toBeUndefined();
    expect(sharedCredential(author([['uadmin']]), approver([[]]))).toMatch(
      /you \(uadmin\) issued or could hold/,
    );
    expect(sharedCredential(author([[], ['uadmin']]), approver([[]]))).toMatch(/you \(uadmin\)/);
    expect(sharedCredential(author([[]]), approver([['uanalyst']]))).toMatch(
      /uanalyst, who made this decision, issued or could hold your API key/,
    );
  });
});
