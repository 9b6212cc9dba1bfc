import { describe, expect, it } from 'vitest';
import { refusedAddress } from '../../lib/webhooks/address-guard.ts';

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
