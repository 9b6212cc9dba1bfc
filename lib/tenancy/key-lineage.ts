import type { Role } from './roles.ts';

/**
 * Who could hold a user's key besides the user: the rule that keeps one person from holding two
 * identities in a four-eyes pair (README, "The four-eyes rule").
 *
 * Without an identity provider a key is only a bearer secret, and whoever received it when it was
 * issued can act as its user. So every user record keeps who caused its current key
 * (`key_issued_by`) and its `key_lineage`: the tenant users other than the holder who held a key
 * from which the current one descends, and so could hold the current one.
 *
 * - Operations (the ops CLI: create-tenant, add-user, revoke-key) hand a key to its user directly:
 *   the lineage is empty. Operations is outside every tenant and is trusted to do so.
 * - An admin who adds a user (POST /users) or revokes their key (POST /users/{id}/revoke-key)
 *   receives the new key: the lineage is that admin alone. The old key is dead, so whoever held
 *   it holds nothing now.
 * - A rotation (POST /me/rotate-key) is authorised by the old key, so whoever held the old key
 *   could have made it and holds the new one: the lineage is kept. Only a reset by operations
 *   clears it, or a reset by another admin replaces it.
 */
export interface KeyIssuer {
  user_id: string;
  role: Role | 'ops';
}

/** The ops CLI as the issuer of a key (the same actor the audit trail names). */
export const OPERATIONS_ISSUER: KeyIssuer = { user_id: 'ops-cli', role: 'ops' };

/** The lineage of a key issued by `issuer` to `holderId`, whose previous key had `previous`. */
export function lineageOfNewKey(
  issuer: KeyIssuer,
  holderId: string,
  previous: readonly string[] = [],
): string[] {
  if (issuer.role === 'ops') return [];
  if (issuer.user_id === holderId) return [...previous];
  return [issuer.user_id];
}

/** One side of a four-eyes pair: a user and the lineage of the key(s) they acted with. */
export interface KeyHolder {
  user_id: string;
  /** Every lineage that applies: the key they acted with, and their current key. */
  lineages: ReadonlyArray<readonly string[] | undefined>;
}

/**
 * Why `approver` may not sign off what `author` decided, or undefined when they may: either one
 * could have held the other's key (see above). The detail names the rule and the remedy.
 */
export function sharedCredential(author: KeyHolder, approver: KeyHolder): string | undefined {
  const held = (holder: KeyHolder, by: string) => holder.lineages.some((lineage) => lineage?.includes(by));
  if (held(author, approver.user_id)) {
    return `you (${approver.user_id}) issued or could hold the API key ${author.user_id} decided with: a key an admin adds or resets reaches that admin, so you could have made this decision yourself. Four eyes needs an admin who never held the author's key; or operations resets ${author.user_id}'s key (npm run admin -- revoke-key) and they decide again`;
  }
  if (held(approver, author.user_id)) {
    return `${author.user_id}, who made this decision, issued or could hold your API key, so one person could act as both of you. Four eyes needs another admin; or operations resets your key (npm run admin -- revoke-key)`;
  }
  return undefined;
}
