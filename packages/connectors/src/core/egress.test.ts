import type { LookupAddress } from 'node:dns';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileDefinition } from '../definitions/compile-definition.ts';
import { checkDefinition } from '../definitions/definition-problems.ts';
import { connectWith } from './connect.ts';
import {
  EgressRefusedError,
  egressFetch,
  embeddedIpv4,
  isPublicAddress,
  publicOnlyLookup,
  templateHost,
} from './egress.ts';
import { ConnectorError } from './errors.ts';

/**
 * A hostile definition author against the egress guard: every spelling of loopback, private, link-local and metadata
 * addresses, names that resolve (or rebind) to them, redirects to them, and config values that try to move the host.
 * A listener on every local address counts the connections that got through: the suite ends with none.
 */

let trap: Server;
let trapPort: number;
let connections = 0;
let redirector: Server;
let redirectorPort: number;
let redirectTarget = '';

beforeAll(async () => {
  trap = createServer((_req, res) => res.end('{"data":[]}'));
  trap.on('connection', () => connections++);
  await new Promise<void>((resolve) => trap.listen({ port: 0, host: '::', ipv6Only: false }, resolve));
  trapPort = (trap.address() as AddressInfo).port;
  redirector = createServer((_req, res) => res.writeHead(302, { location: redirectTarget }).end());
  await new Promise<void>((resolve) => redirector.listen(0, '127.0.0.1', resolve));
  redirectorPort = (redirector.address() as AddressInfo).port;
});

afterAll(async () => {
  await new Promise((resolve) => trap.close(resolve));
  await new Promise((resolve) => redirector.close(resolve));
});

type Resolver = (host: string) => LookupAddress[];

/** A resolver standing in for DNS: the hostile names answer what the attacker wants. */
function fakeDns(answer: Resolver) {
  return ((host: string, _options: unknown, callback: (e: Error | null, a: LookupAddress[]) => void) => {
    const addresses = answer(host);
    if (addresses.length === 0) callback(Object.assign(new Error(`ENOTFOUND ${host}`), { code: 'ENOTFOUND' }), []);
    else callback(null, addresses);
  }) as never;
}

const v4 = (address: string): LookupAddress => ({ address, family: 4 });
const v6 = (address: string): LookupAddress => ({ address, family: 6 });

/** What `attempt` answers when the definition itself is refused (nothing can be sent for it). */
const REFUSED_DEFINITION = new ConnectorError('invalid_request', 'the definition was refused');

/** A definition whose base is `baseUrl`: what a hostile author would post (null: checkDefinition refuses it). */
function definitionAt(baseUrl: string, config: Record<string, { pattern: string }> = {}) {
  const check = checkDefinition({
    name: 'Hostile-Kind',
    base_url: baseUrl,
    config,
    auth: { type: 'bearer' },
    entities: {
      items: {
        key: 'id',
        fields: { id: 'string!' },
        list: { path: '/items', records: 'data', paging: { type: 'none' } },
      },
    },
  });
  return check.ok ? compileDefinition(check.definition) : null;
}

/** Lists through a connector of the definition; what the guard (or the config check) refused it with. */
async function attempt(
  baseUrl: string,
  options: {
    config?: Record<string, string>;
    dns?: Resolver;
    allow?: string[];
    patterns?: Record<string, { pattern: string }>;
  } = {},
): Promise<unknown> {
  const definition = definitionAt(baseUrl, options.patterns ?? {});
  if (!definition) return REFUSED_DEFINITION;
  const host = templateHost(baseUrl);
  const fetch = egressFetch({
    hosts: host ? [host] : [],
    operatorAllow: options.allow ?? [],
    maxResponseBytes: 1024 * 1024,
    lookup: fakeDns(options.dns ?? (() => [])),
  });
  try {
    const connector = connectWith(definition, { access_token: 't' }, options.config ?? {}, {
      fetch,
      retry: { maxAttempts: 1, baseDelayMs: 1, maxDelayMs: 1, maxWaitMs: 1 },
    });
    await connector.execute({ entity: 'items', action: 'list' });
    return null;
  } catch (error) {
    return error;
  }
}

const LOOPBACK_HOSTS = [
  '127.0.0.1',
  '127.1',
  '127.0.1',
  '127.000.000.001',
  '127.255.255.254',
  '2130706433',
  '0x7f000001',
  '0x7F000001',
  '0x7f.0.0.1',
  '0x7f.0x0.0x0.0x1',
  '0177.0.0.1',
  '0177.0.0.01',
  '017700000001',
  '0177.1',
  '0',
  '0.0.0.0',
  '0x0',
  '00',
  '%31%32%37.0.0.1',
  '１２７.０.０.１',
  '127。0。0。1',
  '[::]',
  '[::1]',
  '[0:0:0:0:0:0:0:1]',
  '[0000:0000:0000:0000:0000:0000:0000:0001]',
  '[::ffff:127.0.0.1]',
  '[::ffff:7f00:1]',
  '[::FFFF:127.0.0.1]',
  '[0:0:0:0:0:ffff:127.0.0.1]',
  '[::127.0.0.1]',
  '[::7f00:1]',
  '[::ffff:0:127.0.0.1]',
  '[::ffff:0:7f00:1]',
  '[64:ff9b::127.0.0.1]',
  '[64:ff9b::7f00:1]',
  '[64:ff9b:1::7f00:1]',
  '[2002:7f00:1::]',
  '[2002:7f00:0001::1]',
  '[2001:0:0:0:0:0:80ff:fffe]',
  '[::ffff:0.0.0.0]',
  '[::ffff:0:0]',
  'localhost',
  'LOCALHOST',
  'localhost.',
  'foo.localhost',
  'a.b.localhost',
  'foo.localhost.',
  'printer.local',
  'db.internal',
  'router.home.arpa',
  'box.localdomain',
];

const PRIVATE_HOSTS = [
  '10.0.0.1',
  '10.255.255.255',
  '012.0.0.1',
  '0xa000001',
  '167772161',
  '172.16.0.1',
  '172.31.255.254',
  '0xac100001',
  '192.168.0.1',
  '192.168.255.254',
  '3232235521',
  '0xc0a80001',
  '100.64.0.1',
  '100.127.255.254',
  '198.18.0.1',
  '198.19.255.254',
  '192.0.0.1',
  '224.0.0.1',
  '239.255.255.250',
  '255.255.255.255',
  '240.0.0.1',
  '[fe80::1]',
  '[fe80::1%25eth0]',
  '[fc00::1]',
  '[fd00::1]',
  '[fdff:ffff::1]',
  '[fec0::1]',
  '[ff02::1]',
  '[::ffff:10.0.0.1]',
  '[::ffff:192.168.1.1]',
  '[::ffff:172.16.0.1]',
  '[64:ff9b::10.0.0.1]',
  '[64:ff9b::c0a8:101]',
  '[2002:c0a8:101::]',
  '[2002:0a00:0001::]',
  '[::10.0.0.1]',
  '[100::1]',
  '[2001:db8::1]',
];

const METADATA_HOSTS = [
  '169.254.169.254',
  '169.254.169.254.',
  '2852039166',
  '0xa9fea9fe',
  '0251.0376.0251.0376',
  '169.254.0.1',
  '[::ffff:169.254.169.254]',
  '[::ffff:a9fe:a9fe]',
  '[64:ff9b::169.254.169.254]',
  '[2002:a9fe:a9fe::]',
  '100.100.100.200',
  '[fd00:ec2::254]',
  'metadata.google.internal',
  'metadata',
  'instance-data',
  'metadata.azure.com',
];

/** Public names that answer what the attacker points them at. */
const RESOLVED_TO: readonly (readonly [string, LookupAddress[]])[] = [
  ['loopback.attacker.example', [v4('127.0.0.1')]],
  ['loop2.attacker.example', [v4('127.0.0.53')]],
  ['v6loop.attacker.example', [v6('::1')]],
  ['mapped.attacker.example', [v6('::ffff:127.0.0.1')]],
  ['nat64.attacker.example', [v6('64:ff9b::7f00:1')]],
  ['sixtofour.attacker.example', [v6('2002:7f00:1::')]],
  ['private10.attacker.example', [v4('10.1.2.3')]],
  ['private172.attacker.example', [v4('172.20.0.5')]],
  ['private192.attacker.example', [v4('192.168.10.10')]],
  ['cgnat.attacker.example', [v4('100.64.3.4')]],
  ['meta.attacker.example', [v4('169.254.169.254')]],
  ['meta6.attacker.example', [v6('fd00:ec2::254')]],
  ['ula.attacker.example', [v6('fd12:3456::1')]],
  ['linklocal6.attacker.example', [v6('fe80::abcd')]],
  ['zero.attacker.example', [v4('0.0.0.0')]],
  ['unspecified6.attacker.example', [v6('::')]],
  ['mixed.attacker.example', [v4('8.8.8.8'), v4('127.0.0.1')]],
  ['mixed6.attacker.example', [v6('2606:4700::1111'), v6('::1')]],
  ['mixed-private-first.attacker.example', [v4('10.0.0.1'), v4('1.1.1.1')]],
  ['broadcast.attacker.example', [v4('255.255.255.255')]],
];

const CONFIG_VALUES = [
  '../admin',
  'a/b',
  'evil.example/',
  'evil.example#',
  'evil.example?',
  'user@evil',
  'a:1',
  'a.b',
  '127.0.0.1',
  '%2e%2e',
  '..',
  '',
  ' acme',
  'acme ',
  'ACME\u0000',
  'acme\r\nHost: evil',
  'ａｃｍｅ',
  'xn--',
  '-acme',
  'a'.repeat(64),
];

describe('the egress guard of defined kinds', () => {
  const loopback = LOOPBACK_HOSTS.flatMap((host) => [`http://${host}:PORT/api`, `https://${host}:PORT/api`]);
  it.each([
    ...loopback,
    ...PRIVATE_HOSTS.map((h) => `https://${h}:PORT`),
    ...METADATA_HOSTS.map((h) => `http://${h}:PORT/latest`),
  ])('refuses %s', async (template) => {
    const error = await attempt(template.replace('PORT', String(trapPort)));
    expect(error).toBeInstanceOf(ConnectorError);
  });

  it.each(RESOLVED_TO)('refuses a name that resolves to a non-public address: %s → %j', async (name, addresses) => {
    const error = await attempt(`https://${name}:${trapPort}/api`, { dns: () => addresses });
    expect(error).toBeInstanceOf(EgressRefusedError);
    expect((error as Error).message).toMatch(/not a public address/);
  });

  it('checks the address where the connection is made, so a name that rebinds after a check gets nowhere', async () => {
    let answers = 0;
    const rebinding: Resolver = () => (answers++ === 0 ? [v4('93.184.216.34')] : [v4('127.0.0.1')]);
    const lookup = publicOnlyLookup(fakeDns(rebinding));
    // A check made ahead of time sees a public address...
    const first = await new Promise<string>((resolve, reject) =>
      lookup('rebind.attacker.example', {}, (error, address) => (error ? reject(error) : resolve(address as string))),
    );
    expect(first).toBe('93.184.216.34');
    // ...and the connection, which resolves again, is refused: the guard is in the connection, not before it.
    const error = await attempt(`https://rebind.attacker.example:${trapPort}/api`, { dns: rebinding });
    expect(error).toBeInstanceOf(EgressRefusedError);
    expect(answers).toBe(2);
  });

  it.each(
    // A Location header is ASCII: the hosts a redirect can name.
    [...LOOPBACK_HOSTS, ...METADATA_HOSTS]
      .filter((host) => /^[\x21-\x7e]+$/.test(host))
      .map((host) => `http://${host}:PORT/`),
  )('does not follow a redirect to %s', async (target) => {
    redirectTarget = target.replace('PORT', String(trapPort));
    const error = await attempt(`http://127.0.0.1:${redirectorPort}/api`, { allow: [`127.0.0.1:${redirectorPort}`] });
    expect(error).toBeInstanceOf(EgressRefusedError);
    expect((error as Error).message).toMatch(/redirects are not followed/);
  });

  it.each(CONFIG_VALUES)('refuses a config value that tries to change the host or path: %j', async (value) => {
    const error = await attempt('https://{tenant}.vendor.example/api', {
      config: { tenant: value },
      patterns: { tenant: { pattern: '.*' } },
      dns: () => [v4('127.0.0.1')],
    });
    expect(error).toBeInstanceOf(ConnectorError);
  });

  it.each([
    ['http on a declared public host', 'http://api.vendor.example/v1'],
    ['ftp', 'ftp://api.vendor.example/v1'],
    ['credentials in the URL', `https://user:pass@api.vendor.example/v1`],
  ])('refuses %s', async (_, template) => {
    const error = await attempt(template, { dns: () => [v4('93.184.216.34')] });
    expect(error).toBeInstanceOf(ConnectorError);
  });

  it('refuses a host the definition does not declare, even a public one', async () => {
    const fetch = egressFetch({ hosts: ['api.vendor.example'], operatorAllow: [], maxResponseBytes: 1024 });
    await expect(fetch('https://other.example/')).rejects.toThrow(/not a host the definition declares/);
  });

  it('lets an operator open an internal host:port, and only that one', async () => {
    const base = `http://127.0.0.1:${trapPort}/api`;
    const before = connections;
    expect(await attempt(base, { allow: [`127.0.0.1:${trapPort}`] })).toBeNull();
    expect(connections).toBe(before + 1);
    const other = await attempt(base, { allow: [`127.0.0.1:${trapPort + 1}`] });
    expect(other).toBeInstanceOf(EgressRefusedError);
    connections = before;
  });

  it('cuts an answer larger than the cap', async () => {
    const big = createServer((_req, res) => res.end(JSON.stringify({ data: ['x'.repeat(4096)] })));
    await new Promise<void>((resolve) => big.listen(0, '127.0.0.1', resolve));
    const port = (big.address() as AddressInfo).port;
    const fetch = egressFetch({ hosts: [], operatorAllow: [`127.0.0.1:${port}`], maxResponseBytes: 1000 });
    await expect(fetch(`http://127.0.0.1:${port}/`)).rejects.toThrow(/larger than 1000 bytes/);
    await new Promise((resolve) => big.close(resolve));
  });

  it('decodes the IPv4 address inside every IPv6 form that carries one', () => {
    expect(embeddedIpv4('::ffff:7f00:1')).toBe('127.0.0.1');
    expect(embeddedIpv4('64:ff9b::a00:1')).toBe('10.0.0.1');
    expect(embeddedIpv4('2002:c0a8:101::1')).toBe('192.168.1.1');
    expect(embeddedIpv4('2001:0:4136:e378:8000:63bf:80ff:fffe')).toBe('127.0.0.1');
    expect(isPublicAddress('2606:4700::1111')).toBe(true);
    expect(isPublicAddress('8.8.8.8')).toBe(true);
    expect(isPublicAddress('::ffff:8.8.8.8')).toBe(true);
  });

  it('let no request reach a forbidden address', () => {
    expect(connections).toBe(0);
  });
});
