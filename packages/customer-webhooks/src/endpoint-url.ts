import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP } from 'node:net';

export interface EndpointUrlPolicy {
  /** WEBHOOK_ALLOW_HTTP: http as well as https. */
  readonly allowHttp: boolean;
  /** WEBHOOK_ALLOW_PRIVATE: loopback, private and link-local addresses as well as public ones. */
  readonly allowPrivate: boolean;
}

/**
 * Addresses an endpoint may not reach (a request from inside the platform to them would reach what the internet
 * cannot): loopback, private (RFC 1918, unique local), link-local (cloud metadata at 169.254.169.254), carrier-grade
 * NAT, unspecified, multicast and reserved; IPv6 forms that carry an IPv4 address are judged by that address
 * (embeddedIpv4).
 */
const NOT_PUBLIC = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  NOT_PUBLIC.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const)
  NOT_PUBLIC.addSubnet(network, prefix, 'ipv6');

/** Whether `address` (an IP literal) is a public address; an IPv6 address that embeds an IPv4 one is judged by it. */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  if (family === 4) return !NOT_PUBLIC.check(address, 'ipv4');
  const groups = ipv6Groups(address);
  if (groups === undefined) return false;
  const embedded = embeddedIpv4(groups);
  if (embedded === null) return false;
  if (embedded !== undefined) return isPublicAddress(embedded);
  return !NOT_PUBLIC.check(address, 'ipv6');
}

/**
 * The IPv4 address an IPv6 address carries, where the platform's network (or a gateway on the way) could turn it
 * into that IPv4 address: undefined when it carries none, null for a range refused whole.
 * - `::ffff:0:0/96` IPv4-mapped and `::/96` IPv4-compatible (RFC 4291 §2.5.5), `::ffff:0:0:0/96` IPv4-translated
 *   (RFC 2765 §2.1): the last 32 bits.
 * - `64:ff9b::/96` NAT64 well-known prefix (RFC 6052 §2.1): the last 32 bits.
 * - `2002::/16` 6to4 (RFC 3056 §2): bits 16 to 47.
 * - `64:ff9b:1::/48` NAT64 local-use (RFC 8215) places the IPv4 address by a prefix length only its network knows,
 *   and `2001::/32` Teredo (RFC 4380 §4) carries an obfuscated one: both refused.
 */
function embeddedIpv4(groups: readonly number[]): string | null | undefined {
  const ipv4 = (high: number, low: number) => `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`;
  const [g0, g1, g2, g3, g4, g5, g6, g7] = groups as [number, number, number, number, number, number, number, number];
  const zeroTo = (end: number) => groups.slice(0, end).every((g) => g === 0);
  if (zeroTo(5) && (g5 === 0xffff || g5 === 0)) return ipv4(g6, g7);
  if (zeroTo(4) && g4 === 0xffff && g5 === 0) return ipv4(g6, g7);
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) return ipv4(g6, g7);
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 1) return null;
  if (g0 === 0x2002) return ipv4(g1, g2);
  if (g0 === 0x2001 && g1 === 0) return null;
  return undefined;
}

/** The eight 16-bit groups of an IPv6 literal (`::` expanded, a dotted IPv4 tail as two groups). */
function ipv6Groups(address: string): number[] | undefined {
  let text = address.toLowerCase().replace(/%.*$/, '');
  const dotted = /^(.*:)(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(2).map(Number) as [number, number, number, number];
    text = `${dotted[1]}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail, more] = text.split('::');
  if (more !== undefined) return undefined;
  const parse = (part: string | undefined) => (part ? part.split(':').map((g) => Number.parseInt(g, 16)) : []);
  const front = parse(head);
  const back = parse(tail);
  const groups = tail === undefined ? front : [...front, ...Array(8 - front.length - back.length).fill(0), ...back];
  return groups.length === 8 && groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? groups : undefined;
}

/**
 * What is wrong with an endpoint URL under the policy, or null. Names are checked again where the delivery
 * connects (`guardedLookup`): a name may resolve elsewhere later.
 */
export function endpointUrlProblem(raw: string, policy: EndpointUrlPolicy): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'not a URL';
  }
  if (url.protocol !== 'https:' && !(policy.allowHttp && url.protocol === 'http:')) {
    return policy.allowHttp ? 'must be http or https' : 'must be https';
  }
  if (url.username || url.password) return 'must not carry credentials';
  if (policy.allowPrivate) return null;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (host === 'localhost' || host.endsWith('.localhost')) return 'must not be a loopback address';
  if (isIP(host) && !isPublicAddress(host)) return 'must be a public address (not loopback, private or link-local)';
  return null;
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `dns.lookup` for the delivery's connections that refuses names resolving to a non-public address, so the
 * check holds at connect time (DNS rebinding) and not only when the URL was saved.
 */
export function guardedLookup(
  hostname: string,
  options: { all?: boolean; family?: number | string },
  callback: LookupCallback,
): void {
  dnsLookup(hostname, { ...options, all: true } as { all: true }, (error, addresses) => {
    if (error) return callback(error, []);
    const refused = addresses.find((a) => !isPublicAddress(a.address));
    if (refused) {
      const denied = Object.assign(new Error(`${hostname} resolves to ${refused.address}, not a public address`), {
        code: 'EADDRNOTPUBLIC',
      });
      return callback(denied, []);
    }
    if (options.all) return callback(null, addresses);
    const [first] = addresses;
    return callback(null, first!.address, first!.family);
  });
}
