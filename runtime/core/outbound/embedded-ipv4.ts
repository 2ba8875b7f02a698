/**
 * The IPv4 addresses an IPv6 address carries: every standard form that
 * embeds one, so the address guard can judge the IPv4 address it leads to.
 *
 * - IPv4-compatible `::a.b.c.d` (RFC 4291 §2.5.5.1, deprecated; not `::` or `::1`)
 * - IPv4-mapped `::ffff:a.b.c.d` (RFC 4291 §2.5.5.2)
 * - IPv4-translated `::ffff:0:a.b.c.d` (RFC 6145)
 * - NAT64 `64:ff9b::/96` (RFC 6052) and the local-use `64:ff9b:1::/48`
 *   (RFC 8215), whose operator picks the prefix length: every position
 *   RFC 6052 allows there is read
 * - 6to4 `2002:AABB:CCDD::/48` (RFC 3056), the IPv4 address in bits 16–47
 * - Teredo `2001::/32` (RFC 4380), the client's address in the last 32 bits,
 *   inverted
 */
import ipaddr from 'ipaddr.js';

type Parts = readonly number[];

export function embeddedIPv4(address: ipaddr.IPv6): ipaddr.IPv4[] {
  const parts = address.parts;
  return positionsOf(parts).map((bytes) => new ipaddr.IPv4(bytes));
}

function positionsOf(parts: Parts): number[][] {
  const bytes = parts.flatMap((part) => [part >> 8, part & 0xff]);
  const zeros = (from: number, to: number) => bytes.slice(from, to).every((b) => b === 0);
  const last32 = bytes.slice(12, 16);
  if (zeros(0, 12)) {
    const value = last32.reduce((n, b) => n * 256 + b, 0);
    return value > 1 ? [last32] : [];
  }
  if (zeros(0, 10) && parts[5] === 0xffff) return [last32];
  if (zeros(0, 8) && parts[4] === 0xffff && parts[5] === 0) return [last32];
  if (parts[0] === 0x64 && parts[1] === 0xff9b && zeros(4, 12)) return [last32];
  if (parts[0] === 0x64 && parts[1] === 0xff9b && parts[2] === 1) return rfc6052Positions(bytes);
  if (parts[0] === 0x2002) return [bytes.slice(2, 6)];
  if (parts[0] === 0x2001 && parts[1] === 0) return [last32.map((b) => b ^ 0xff)];
  return [];
}

/**
 * RFC 6052 §2.2: where the IPv4 address sits behind a /48, /56, /64 or /96
 * prefix inside `64:ff9b:1::/48` (bits 64–71, the `u` octet, are skipped).
 * Every reading counts, so an address one of whose readings is refused is
 * refused; a reading that is all zeros is the padding of a longer prefix.
 */
function rfc6052Positions(bytes: readonly number[]): number[][] {
  const skipU = (from: number) =>
    [from, from + 1, from + 2, from + 3, from + 4].filter((i) => i !== 8).slice(0, 4);
  const shorter = [6, 7, 9]
    .map((from) => skipU(from).map((i) => bytes[i]!))
    .filter((reading) => reading.some((b) => b !== 0));
  return [bytes.slice(12, 16), ...shorter];
}
