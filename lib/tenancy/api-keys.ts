import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** The request header that carries the key (SPEC 5: `X-API-Key`), as HTTP/2 and API Gateway spell it. */
export const API_KEY_HEADER = 'x-api-key';

/**
 * API keys: `isk_<tenantId>.<userId>.<secret>`, the secret 32 random bytes (base64url).
 * The key names its tenant and user, so authentication is one GetItem on the user record (tenant
 * first in the key, no global key index); only the SHA-256 of the whole key is stored.
 */
export const API_KEY_PREFIX = 'isk_';
const SECRET_BYTES = 32;
const ID_PATTERN = /^[a-z0-9]{4,40}$/;

/** True for a string shaped like a tenant or user id (anything else names nobody: 404). */
export function isAccountId(text: string): boolean {
  return ID_PATTERN.test(text);
}

export interface IssuedKey {
  /** Shown to the caller once; never stored. */
  key: string;
  hash: string;
  /** First characters, safe to display so a person can tell keys apart. */
  hint: string;
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

export function issueApiKey(tenantId: string, userId: string): IssuedKey {
  const key = `${API_KEY_PREFIX}${tenantId}.${userId}.${randomBytes(SECRET_BYTES).toString('base64url')}`;
  return {
    key,
    hash: hashApiKey(key),
    hint: `${key.slice(0, API_KEY_PREFIX.length + tenantId.length + 5)}…`,
  };
}

/** Splits a presented key into the ids it names, or undefined when it is not of our form. */
export function parseApiKey(key: string): { tenantId: string; userId: string } | undefined {
  if (!key.startsWith(API_KEY_PREFIX) || key.length > 200) return undefined;
  const [tenantId, userId, secret, ...rest] = key.slice(API_KEY_PREFIX.length).split('.');
  if (rest.length > 0 || !tenantId || !userId || !secret) return undefined;
  if (!ID_PATTERN.test(tenantId) || !ID_PATTERN.test(userId) || secret.length < 43) return undefined;
  return { tenantId, userId };
}

/** Constant-time comparison of a presented key against a stored hash. */
export function keyMatchesHash(key: string, storedHash: string): boolean {
  const presented = Buffer.from(hashApiKey(key), 'hex');
  const stored = Buffer.from(storedHash, 'hex');
  return presented.length === stored.length && timingSafeEqual(presented, stored);
}

/** Short random ids for tenants and users: lowercase base32, 12 characters (60 bits). */
export function newId(prefix: 't' | 'u' | 'b' | 'c'): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz234567';
  const bytes = randomBytes(11);
  let id = prefix;
  for (let i = 0; i < 11; i++) id += alphabet[bytes[i] & 31];
  return id;
}
