import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { InvalidRequestError } from '../common/errors.ts';

/**
 * Where a webhook may be sent (docs/webhooks.md, "Safety"). A customer names the URL, so without
 * this guard the service would be a proxy into its own network: the instance metadata service,
 * the VPC, loopback. The host is resolved, every address it resolves to must be public, and the
 * connection is then made to that checked address (never resolved a second time), both when the
 * endpoint is registered and at every delivery, so a name that later resolves elsewhere (DNS
 * rebinding) is refused before any connection is attempted.
 */

/** Addresses a webhook may never reach: private, loopback, link-local (metadata), shared, reserved, multicast. */
const FORBIDDEN = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  FORBIDDEN.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['fc00::', 7], // unique local, including fd00:ec2::254 (the metadata service over IPv6)
  ['fe80::', 10],
  ['ff00::', 8],
  // IPv6 forms that carry an IPv4 address, which could spell a forbidden one: IPv4-compatible,
  // IPv4-translated, NAT64, 6to4, Teredo (IPv4-mapped addresses are judged by their IPv4 address).
  ['::', 96],
  ['::ffff:0:0:0', 96],
  ['64:ff9b::', 96],
  ['2002::', 16],
  ['2001::', 32],
  ['100::', 64], // discard-only
  ['2001:db8::', 32],
] as const)
  FORBIDDEN.addSubnet(net, prefix, 'ipv6');

const LOOPBACK = new Set(['127.0.0.1', '::1']);

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a host name to every address it has (the default: the system resolver). */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemResolver: Resolver = async (hostname) =>
  (await lookup(hostname, { all: true, verbatim: true })).map((entry) => ({
    address: entry.address,
    family: entry.family === 6 ? 6 : 4,
  }));

export interface AddressPolicy {
  /** Local development and tests: http://127.0.0.1 and http://[::1] receivers (WEBHOOK_ALLOW_LOOPBACK). */
  allowLoopback: boolean;
}

/** The address itself, or the IPv4 address an IPv4-mapped one (dotted) carries. */
const unmapped = (address: string) => /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1] ?? address;

/** Why an address is refused, or undefined when it may be reached. */
export function refusedAddress(address: string, policy: AddressPolicy): string | undefined {
  const plain = unmapped(address);
  const family = isIP(plain);
  if (family === 0) return `${address} is not an IP address`;
  if (policy.allowLoopback && LOOPBACK.has(plain)) return undefined;
  if (FORBIDDEN.check(plain, family === 6 ? 'ipv6' : 'ipv4'))
    return `${address} is a private, loopback, link-local or reserved address`;
  return undefined;
}

export interface CheckedTarget {
  url: URL;
  /** The checked address to connect to; never resolved again. */
  address: ResolvedAddress;
}

/** Thrown when a URL may not be reached; a 400 at registration, a failed attempt at delivery. */
export class RefusedUrlError extends InvalidRequestError {}

const HTTPS_ONLY = 'url: must use https';
const LOOPBACK_HTTP_ONLY = `${HTTPS_ONLY} (http only for receivers on 127.0.0.1 or [::1] here)`;

/**
 * The URL's form alone: https (or, when loopback is allowed, http, which checkTarget then allows
 * only to a host whose every address is loopback), no credentials, a host.
 */
export function checkUrlForm(text: string, policy: AddressPolicy): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new RefusedUrlError('url: must be an absolute https URL');
  }
  const loopbackHttp = policy.allowLoopback && url.protocol === 'http:';
  if (url.protocol !== 'https:' && !loopbackHttp)
    throw new RefusedUrlError(policy.allowLoopback ? LOOPBACK_HTTP_ONLY : HTTPS_ONLY);
  if (url.username || url.password) throw new RefusedUrlError('url: must not carry a user name or password');
  if (url.hash) throw new RefusedUrlError('url: must not have a fragment');
  return url;
}

/**
 * Resolves the URL's host and checks every address: refused (RefusedUrlError, naming the host and
 * the address) when any is forbidden, so a name with one public and one private address is refused too.
 * Plain http (allowed only with loopback, for development and tests) must stay on this machine:
 * every address loopback, whether the URL names an address or a host name that resolves to one.
 */
export async function checkTarget(
  text: string,
  policy: AddressPolicy,
  resolve: Resolver,
): Promise<CheckedTarget> {
  const url = checkUrlForm(text, policy);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: ResolvedAddress[];
  if (isIP(host)) addresses = [{ address: host, family: isIP(host) === 6 ? 6 : 4 }];
  else {
    try {
      addresses = await resolve(host);
    } catch {
      throw new RefusedUrlError(`url: the host ${host} does not resolve`);
    }
  }
  if (addresses.length === 0) throw new RefusedUrlError(`url: the host ${host} does not resolve`);
  for (const { address } of addresses) {
    const why = refusedAddress(address, policy);
    if (why)
      throw new RefusedUrlError(`url: ${host} resolves to ${why}; webhooks go to public addresses only`);
  }
  if (url.protocol === 'http:' && !addresses.every(({ address }) => LOOPBACK.has(unmapped(address))))
    throw new RefusedUrlError(LOOPBACK_HTTP_ONLY);
  return { url, address: addresses[0] };
}
