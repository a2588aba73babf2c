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
 * NAT, unspecified, and IPv4 mapped into IPv6.
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

/** Whether `address` (an IP literal) is a public address. */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return isPublicAddress(mapped[1]!);
  return !NOT_PUBLIC.check(address, family === 4 ? 'ipv4' : 'ipv6');
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
