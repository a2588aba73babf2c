import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP } from 'node:net';
import { Agent, fetch as undiciFetch } from 'undici';
import { UpstreamError } from './errors.ts';

/**
 * Addresses no upstream call of a defined kind may reach (docs/security.md): what the internet cannot reach but a
 * process inside the platform can. IPv6 forms that carry an IPv4 address (mapped, compatible, NAT64, 6to4, Teredo)
 * are decoded and judged by that address.
 */
const NOT_PUBLIC_V4: readonly (readonly [string, number])[] = [
  ['0.0.0.0', 8], // "this network", 0.0.0.0
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT (and cloud metadata at 100.100.100.200)
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, cloud metadata at 169.254.169.254
  ['172.16.0.0', 12],
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.88.99.0', 24], // 6to4 relay anycast
  ['192.168.0.0', 16],
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
];
const NOT_PUBLIC_V6: readonly (readonly [string, number])[] = [
  ['::', 128],
  ['::1', 128],
  ['100::', 64], // discard-only
  ['2001:db8::', 32], // documentation
  ['fc00::', 7], // unique local (fd00:ec2::254 is a cloud metadata address)
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated, still routed by some stacks)
  ['ff00::', 8], // multicast
];
const NOT_PUBLIC = new BlockList();
for (const [network, prefix] of NOT_PUBLIC_V4) NOT_PUBLIC.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of NOT_PUBLIC_V6) NOT_PUBLIC.addSubnet(network, prefix, 'ipv6');

/** Host names that only ever mean a machine inside the platform's network. */
const INTERNAL_NAMES = /(^|\.)(localhost|local|internal|localdomain|home\.arpa)\.?$/i;
const METADATA_NAMES = new Set(['metadata', 'metadata.google.internal', 'instance-data', 'metadata.azure.com']);

/** The 8 groups of an IPv6 literal as numbers (`::` expanded, a trailing dotted IPv4 read as two groups). */
function ipv6Groups(address: string): number[] | null {
  let text = address.toLowerCase().replace(/%.*$/, '');
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted[1]!.split('.').map(Number) as [number, number, number, number];
    text = `${text.slice(0, -dotted[1]!.length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const missing = 8 - left.length - right.length;
  if (tail === undefined ? missing !== 0 : missing < 0) return null;
  const groups = [...left, ...Array<string>(tail === undefined ? 0 : missing).fill('0'), ...right].map((g) =>
    Number.parseInt(g, 16),
  );
  return groups.length === 8 && groups.every((g) => g >= 0 && g <= 0xffff) ? groups : null;
}

function ipv4Of(high: number, low: number): string {
  return `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`;
}

/** The IPv4 address an IPv6 address carries, if it is one of the forms that embed one. */
export function embeddedIpv4(address: string): string | null {
  const g = ipv6Groups(address);
  if (!g) return null;
  const zeros = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  // ::ffff:a.b.c.d (mapped), ::a.b.c.d (compatible), ::ffff:0:a.b.c.d (translated, RFC 2765)
  if (zeros(0, 5) && (g[5] === 0xffff || g[5] === 0)) return ipv4Of(g[6]!, g[7]!);
  if (zeros(0, 4) && g[4] === 0xffff && g[5] === 0) return ipv4Of(g[6]!, g[7]!);
  // 64:ff9b::/96 (NAT64, RFC 6052) and 64:ff9b:1::/48 (local-use NAT64, RFC 8215)
  if (g[0] === 0x64 && g[1] === 0xff9b && (zeros(2, 6) || g[2] === 1)) return ipv4Of(g[6]!, g[7]!);
  // 2002:AABB:CCDD::/48 (6to4, RFC 3056)
  if (g[0] === 0x2002) return ipv4Of(g[1]!, g[2]!);
  // 2001:0::/32 (Teredo, RFC 4380): the client's address is the last 32 bits, inverted
  if (g[0] === 0x2001 && g[1] === 0) return ipv4Of(g[6]! ^ 0xffff, g[7]! ^ 0xffff);
  return null;
}

/** Whether an IP literal is an address of the public internet. */
export function isPublicAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '');
  const family = isIP(bare);
  if (family === 0) return false;
  if (family === 6) {
    const embedded = embeddedIpv4(bare);
    if (embedded !== null) return isPublicAddress(embedded);
  }
  return !NOT_PUBLIC.check(bare, family === 4 ? 'ipv4' : 'ipv6');
}

/** What an upstream call of a defined kind may reach. */
export interface EgressPolicy {
  /** Host patterns the kind declares (its base, token and authorize URLs); `{name}` stands for one DNS label. */
  readonly hosts: readonly string[];
  /** CONNECTOR_EGRESS_ALLOW: `host:port` pairs an operator opened (internal hosts; http allowed there). */
  readonly operatorAllow: readonly string[];
  /** Answers larger than this are cut with an error. */
  readonly maxResponseBytes: number;
  /** The resolver (DNS); every address it gives is checked where the connection is made. */
  readonly lookup?: typeof dnsLookup;
}

/** An upstream call a defined kind may not make: answered as a 502 naming why, never sent. */
export class EgressRefusedError extends UpstreamError {
  override name = 'EgressRefusedError';
  constructor(reason: string) {
    super('upstream_error', `egress refused: ${reason}`, null, null, { retryable: false });
  }
}

/** The port of a URL, stated or its scheme's default. */
function portOf(url: URL): string {
  return url.port || (url.protocol === 'https:' ? '443' : '80');
}

function hostPattern(pattern: string): RegExp {
  const escaped = pattern
    .toLowerCase()
    .split(/(\{[^}]*\})/)
    .map((part) =>
      part.startsWith('{') ? '[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'),
    )
    .join('');
  return new RegExp(`^${escaped}$`);
}

/**
 * The host of a URL template as the URL parser reads it (`https://{subdomain}.acme.example/api` →
 * `{subdomain}.acme.example`; `http://127.1` → `127.0.0.1`), or null when it is not a URL.
 */
export function templateHost(template: string): string | null {
  const names: string[] = [];
  const marked = template.replaceAll(/\{([^}]*)\}/g, (_, name: string) => `conduit-var-${names.push(name) - 1}`);
  try {
    return new URL(marked).hostname.replaceAll(/conduit-var-(\d+)/g, (_, i: string) => `{${names[Number(i)]}}`);
  } catch {
    return null;
  }
}

/** Why a URL may not be called under the policy, or null; `opened` when an operator opened its host:port. */
export function egressProblem(url: URL, policy: EgressPolicy): { problem: string | null; opened: boolean } {
  const host = url.hostname.toLowerCase().replace(/^\[|\]$/g, '');
  const opened = policy.operatorAllow.some(
    (entry) => entry.toLowerCase() === `${url.hostname.toLowerCase()}:${portOf(url)}`,
  );
  if (url.username || url.password) return { problem: 'a URL with credentials', opened };
  if (opened) return { problem: url.protocol === 'https:' || url.protocol === 'http:' ? null : 'not http(s)', opened };
  if (url.protocol !== 'https:') return { problem: `${url.protocol.replace(':', '')} is not https`, opened };
  if (!policy.hosts.some((pattern) => hostPattern(pattern).test(host))) {
    return { problem: `${host} is not a host the definition declares`, opened };
  }
  if (isIP(host) && !isPublicAddress(host)) return { problem: `${host} is not a public address`, opened };
  if (INTERNAL_NAMES.test(host) || METADATA_NAMES.has(host.replace(/\.$/, ''))) {
    return { problem: `${host} names an internal host`, opened };
  }
  return { problem: null, opened };
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A lookup for the connection itself: the addresses are checked where the socket is opened and the connection uses
 * exactly the checked address, so a name that answers a public address to one query and a private one to the next
 * (DNS rebinding) cannot slip through.
 */
export function publicOnlyLookup(resolve: typeof dnsLookup = dnsLookup) {
  return (hostname: string, options: { all?: boolean; family?: number | string }, callback: LookupCallback): void => {
    resolve(hostname, { ...options, all: true } as { all: true }, (error, addresses) => {
      if (error) return callback(error, []);
      const refused = addresses.find((a) => !isPublicAddress(a.address));
      if (refused || addresses.length === 0) {
        const denied = Object.assign(
          new Error(`${hostname} resolves to ${refused?.address ?? 'nothing'}, not a public address`),
          { code: 'EADDRNOTPUBLIC' },
        );
        return callback(denied, []);
      }
      if (options.all) return callback(null, addresses);
      const [first] = addresses;
      return callback(null, first!.address, first!.family);
    });
  };
}

/**
 * The fetch every upstream call of a defined kind goes through: only declared hosts over https (or what an operator
 * opened), public addresses checked at connect time, no redirects followed, answers cut past the size cap.
 */
export function egressFetch(policy: EgressPolicy): typeof fetch {
  const guarded = new Agent({ connect: { lookup: publicOnlyLookup(policy.lookup) as never } });
  const open = new Agent({});
  return (async (input: string | URL | Request, init?: RequestInit) => {
    const url = new URL(input instanceof Request ? input.url : input.toString());
    const { problem, opened } = egressProblem(url, policy);
    if (problem) throw new EgressRefusedError(problem);
    let response: Response;
    try {
      response = (await undiciFetch(url, {
        ...(init as object),
        redirect: 'manual',
        dispatcher: opened ? open : guarded,
      })) as unknown as Response;
    } catch (error) {
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      if (cause?.code === 'EADDRNOTPUBLIC') throw new EgressRefusedError(cause.message ?? 'not a public address');
      throw error;
    }
    if (response.status >= 300 && response.status < 400) {
      await response.body?.cancel();
      throw new EgressRefusedError(`the upstream answered ${response.status}: redirects are not followed`);
    }
    return capped(response, policy.maxResponseBytes);
  }) as typeof fetch;
}

/** The response with its body cut, with an error, past `max` bytes. */
function capped(response: Response, max: number): Response {
  const declared = Number(response.headers.get('content-length'));
  const tooLarge = () => new EgressRefusedError(`the answer is larger than ${max} bytes`);
  if (Number.isFinite(declared) && declared > max) {
    void response.body?.cancel();
    throw tooLarge();
  }
  if (!response.body) return response;
  let seen = 0;
  const limited = response.body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        seen += chunk.byteLength;
        if (seen > max) controller.error(tooLarge());
        else controller.enqueue(chunk);
      },
    }),
  );
  return new Response(limited, { status: response.status, statusText: response.statusText, headers: response.headers });
}
