import { isIP } from 'node:net';
import type { Resolver } from '../../lib/webhooks/address-guard.ts';

/**
 * Made-up host names (the reserved `.test` domain, which no real resolver answers) and the
 * loopback address each stands for: a tenant's endpoint is named by a host name, and the tests
 * reach it on this machine only.
 */
export const TEST_HOSTS: Readonly<Record<string, '127.0.0.1' | '::1'>> = {
  'hooks.tenant.test': '127.0.0.1',
  'hooks6.tenant.test': '::1',
};

/**
 * The resolver the tests give the webhook runtime in place of the system's: each made-up name
 * resolves to its loopback address, any other name does not resolve (as getaddrinfo's ENOTFOUND).
 */
export const testResolver: Resolver = async (hostname) => {
  const address = TEST_HOSTS[hostname];
  if (!address) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
  return [{ address, family: isIP(address) === 6 ? 6 : 4 }];
};
