import { describe, expect, it } from 'vitest';
import { checkTarget, type Resolver, refusedAddress } from '../../lib/webhooks/address-guard.ts';

/**
 * The address guard on its own, with no resolver and no connection: every IPv6 form that embeds
 * an IPv4 address is judged by that address or refused, so a forbidden IPv4 address cannot be
 * reached through an IPv6 spelling of it.
 */
const policy = { allowLoopback: false };

describe('the address guard', () => {
  it.each([
    ['::127.0.0.1', 'IPv4-compatible (::/96)'],
    ['::ffff:7f00:1', 'IPv4-mapped, written in hex (::ffff:0:0/96)'],
    ['::ffff:127.0.0.1', 'IPv4-mapped, dotted'],
    ['::ffff:0:7f00:1', 'IPv4-translated (::ffff:0:0:0/96)'],
    ['64:ff9b::7f00:1', 'NAT64 (64:ff9b::/96)'],
    ['2002:7f00:1::', '6to4 (2002::/16)'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'Teredo (2001::/32)'],
    ['100::1', 'discard-only (100::/64)'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['::ffff:a9fe:a9fe', 'the metadata service, IPv4-mapped in hex'],
  ])('refuses %s (%s)', (address) => {
    expect(refusedAddress(address, policy)).toBe(
      `${address} is a private, loopback, link-local or reserved address`,
    );
  });

  it.each([['8.8.8.8'], ['::ffff:8.8.8.8'], ['::ffff:808:808'], ['2606:4700:4700::1111']])(
    'allows the public address %s',
    (address) => {
      expect(refusedAddress(address, policy)).toBeUndefined();
    },
  );
});

/** A stubbed resolver: each name answers the addresses given, and nothing is ever connected to. */
const stubbed =
  (names: Record<string, string[]>): Resolver =>
  async (hostname) =>
    (names[hostname] ?? []).map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));

describe('loopback receivers, allowed only under the explicit setting (WEBHOOK_ALLOW_LOOPBACK)', () => {
  const resolve = stubbed({
    'hooks.tenant.test': ['127.0.0.1'],
    'hooks6.tenant.test': ['::1'],
    'public.tenant.test': ['93.184.216.34'],
    'split.tenant.test': ['127.0.0.1', '93.184.216.34'],
  });
  const allowed = { allowLoopback: true };

  it.each([
    ['http://hooks.tenant.test:8080/in', '127.0.0.1'],
    ['http://hooks6.tenant.test:8080/in', '::1'],
    ['https://hooks.tenant.test/in', '127.0.0.1'],
    ['http://127.0.0.1:8080/in', '127.0.0.1'],
    ['http://[::1]:8080/in', '::1'],
  ])('with it, reaches %s at %s', async (url, address) => {
    expect((await checkTarget(url, allowed, resolve)).address.address).toBe(address);
  });

  it.each([
    ['http://hooks.tenant.test:8080/in', 'url: must use https'],
    ['https://hooks.tenant.test/in', 'url: hooks.tenant.test resolves to 127.0.0.1 is a private'],
    ['https://hooks6.tenant.test/in', 'url: hooks6.tenant.test resolves to ::1 is a private'],
    ['http://127.0.0.1:8080/in', 'url: must use https'],
  ])('without it, refuses %s', async (url, detail) => {
    await expect(checkTarget(url, { allowLoopback: false }, resolve)).rejects.toThrow(detail);
  });

  it.each([['http://public.tenant.test/in'], ['http://split.tenant.test/in'], ['http://93.184.216.34/in']])(
    'with it, still refuses plain http that leaves the machine: %s',
    async (url) => {
      await expect(checkTarget(url, allowed, resolve)).rejects.toThrow(
        'url: must use https (http only for receivers on 127.0.0.1 or [::1] here)',
      );
    },
  );
});
