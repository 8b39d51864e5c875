// Who sent a request: the peer's address, or behind trusted proxies the one X-Forwarded-For names.
import type { IncomingMessage } from 'node:http';
import proxyAddr from '@fastify/proxy-addr';

/** How many proxy hops stand in front of the server, or the proxies' addresses and ranges. */
export type TrustProxy = number | readonly string[];

/** Decides, hop by hop from the peer outwards, whether that hop is a proxy whose word is taken. */
export type TrustFunction = (address: string, hop: number) => boolean;

/**
 * The trust function of a setting, as Fastify's `trustProxy` takes it, so that `request.ip` and the
 * lookup path agree. A number trusts that many hops whoever they are: only for a server that no client
 * can reach but through those proxies. Throws on an address or range that is not one.
 */
export function compileTrust(trust: TrustProxy): TrustFunction {
  if (typeof trust === 'number') return (_address, hop) => hop < trust;
  return proxyAddr.compile([...trust]);
}

/**
 * The client address of a request: the socket's peer, or with trusted proxies the nearest address in
 * X-Forwarded-For that a trusted hop did not add.
 */
export function clientAddressOf(trust: TrustProxy | undefined): (req: IncomingMessage) => string {
  if (trust === undefined) return (req) => req.socket.remoteAddress ?? '';
  const trusted = compileTrust(trust);
  return (req) => proxyAddr(req, trusted) ?? '';
}
