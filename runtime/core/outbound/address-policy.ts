/**
 * Which network addresses the gateway may connect to. Only global unicast is
 * allowed by default; the development policy also allows loopback, private,
 * link-local, unique-local, CGNAT and the other special ranges, but never the
 * unspecified, broadcast or multicast addresses, which are never a server.
 *
 * The lookup here is handed to every socket the outbound client opens, so a
 * connection resolves its name once, every address is checked, and the socket
 * connects to exactly the addresses that were checked (the address is pinned
 * for the life of the kept-alive connection).
 */
import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions } from 'node:dns';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { embeddedIPv4 } from './embedded-ipv4.ts';

export interface AddressPolicy {
  /** Development only: loopback and private ranges are reachable. */
  allowPrivateNetworks: boolean;
}

/** Ranges no policy reaches: they never name one server. */
const NEVER = new Set(['unspecified', 'broadcast', 'multicast']);

/**
 * Why an address is refused under a policy (the ipaddr.js range name), or
 * undefined when it may be reached. Text that is not an IP address is refused.
 * An IPv6 address that embeds an IPv4 address (`::7f00:1`, `2002:7f00:1::`)
 * is refused for that IPv4 address's range when the IPv6 range itself is not.
 */
export function refusedRange(address: string, policy: AddressPolicy): string | undefined {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  if (!ipaddr.isValid(bare)) return 'not_an_address';
  // A zone index (`fe80::1%eth0`) is link-local by definition.
  if (bare.includes('%')) return policy.allowPrivateNetworks ? undefined : 'linkLocal';
  const parsed = ipaddr.parse(bare);
  const refused = refusedFor(parsed.range(), policy);
  if (refused !== undefined || parsed.kind() === 'ipv4') return refused;
  for (const ipv4 of embeddedIPv4(parsed as ipaddr.IPv6)) {
    const embedded = refusedFor(ipv4.range(), policy);
    if (embedded !== undefined) return embedded;
  }
  return undefined;
}

function refusedFor(range: string, policy: AddressPolicy): string | undefined {
  if (range === 'unicast') return undefined;
  if (NEVER.has(range)) return range;
  return policy.allowPrivateNetworks ? undefined : range;
}

/** Raised from the socket's lookup; the client maps it to `upstream_address_refused`. */
export class AddressRefusedError extends Error {
  override readonly name = 'AddressRefusedError';
  readonly code = 'PORTCULLIS_ADDRESS_REFUSED';
  readonly range: string;

  constructor(range: string) {
    super(`the host resolves to a ${range} address, which this gateway does not call`);
    this.range = range;
  }
}

/**
 * A `lookup` for `net.connect`/`tls.connect`: resolves every address of the
 * name, refuses the connection if any of them is refused (a name that mixes a
 * public and a private address is not trusted), and hands back only those.
 */
export function createGuardedLookup(policy: AddressPolicy): LookupFunction {
  return (hostname, options, callback) => {
    const query: LookupAllOptions = { all: true, family: options.family ?? 0 };
    if (options.hints !== undefined) query.hints = options.hints;
    dnsLookup(hostname, query, (error, addresses: LookupAddress[]) => {
      if (error) {
        callback(error, '', 0);
        return;
      }
      const first = addresses[0];
      if (first === undefined) {
        const missing: NodeJS.ErrnoException = new Error(`no address for ${hostname}`);
        missing.code = 'ENOTFOUND';
        callback(missing, '', 0);
        return;
      }
      for (const { address } of addresses) {
        const range = refusedRange(address, policy);
        if (range !== undefined) {
          callback(new AddressRefusedError(range), '', 0);
          return;
        }
      }
      if (options.all) callback(null, addresses);
      else callback(null, first.address, first.family);
    });
  };
}
