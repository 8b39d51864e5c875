// The addresses a webhook may not reach (contract §8): loopback, private, link-local, multicast and
// unspecified, in IPv4, IPv6 and IPv4-mapped forms, checked on every address a name resolves to just
// before connecting to it, so that neither a name for 127.0.0.1 nor a DNS answer that changes slips by.
import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';

// Two lists: Node checks an IPv4 address against IPv6 rules too, as its mapped form, and ::ffff:0:0/96 would
// refuse every IPv4 address.
const FORBIDDEN_V4 = new BlockList();
const FORBIDDEN_V6 = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], // unspecified, "this network"
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, cloud metadata (169.254.169.254)
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const) {
  FORBIDDEN_V4.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128], // unspecified
  ['::1', 128],
  ['::ffff:0:0', 96], // IPv4-mapped: an IPv4 address in IPv6 clothing
  ['64:ff9b::', 96], // NAT64, which reaches any IPv4 address
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
] as const) {
  FORBIDDEN_V6.addSubnet(network, prefix, 'ipv6');
}

/** True when `address` (an IP literal, IPv6 without brackets) is one a webhook may not reach. */
export function isForbiddenAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return true;
  return family === 4 ? FORBIDDEN_V4.check(address, 'ipv4') : FORBIDDEN_V6.check(address, 'ipv6');
}

/** A URL's host as an IP literal (brackets removed), or undefined when it is a name. */
export function literalAddress(hostname: string): string | undefined {
  const bare = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  return isIP(bare) === 0 ? undefined : bare;
}

/** The error of a refused address; never retried into success, but recorded as an attempt's error. */
export class ForbiddenAddressError extends Error {
  readonly code = 'ENRICH_FORBIDDEN_ADDRESS';
  constructor(address: string) {
    super(`refused address ${address}: loopback, private, link-local, multicast or unspecified`);
  }
}

/**
 * A `lookup` for an http(s) Agent: resolves as the system does, and fails when any address the name
 * resolves to is forbidden, so the socket only ever connects to an address that was checked.
 */
export const guardedLookup: LookupFunction = (hostname, options, callback) => {
  const all: LookupAllOptions = { ...options, all: true };
  dnsLookup(hostname, all, (error, addresses: LookupAddress[]) => {
    if (error) return callback(error, '', 0);
    const refused = addresses.find((a) => isForbiddenAddress(a.address));
    if (refused) return callback(new ForbiddenAddressError(refused.address), '', 0);
    if (addresses.length === 0) return callback(new Error(`${hostname} resolves to no address`), '', 0);
    if ((options as LookupAllOptions).all)
      return (callback as (e: null, a: LookupAddress[]) => void)(null, addresses);
    const first = addresses[0]!;
    callback(null, first.address, first.family);
  });
};
