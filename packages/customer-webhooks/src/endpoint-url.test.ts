import { describe, expect, it } from 'vitest';
import { endpointUrlProblem, guardedLookup, isPublicAddress } from './endpoint-url.ts';

const STRICT = { allowHttp: false, allowPrivate: false };

describe('webhook endpoint URLs (SSRF rules)', () => {
  it('tells public addresses from loopback, private, link-local and mapped ones', () => {
    for (const address of ['8.8.8.8', '1.1.1.1', '2606:4700::1111', '172.32.0.1'])
      expect(isPublicAddress(address), address).toBe(true);
    for (const address of [
      '127.0.0.1',
      '10.1.2.3',
      '172.16.5.4',
      '192.168.0.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '::1',
      '::',
      'fd00::1',
      'fe80::1',
      '::ffff:127.0.0.1',
      'not an address',
    ])
      expect(isPublicAddress(address), address).toBe(false);
  });

  it('wants https and a public host unless the profile allows http and private addresses', () => {
    expect(endpointUrlProblem('https://hooks.example.com/x', STRICT)).toBeNull();
    expect(endpointUrlProblem('http://hooks.example.com/x', STRICT)).toBe('must be https');
    expect(endpointUrlProblem('https://127.0.0.1/x', STRICT)).toMatch(/public address/);
    expect(endpointUrlProblem('https://localhost:8443/x', STRICT)).toMatch(/loopback/);
    expect(endpointUrlProblem('https://user:pw@hooks.example.com/x', STRICT)).toMatch(/credentials/);
    expect(endpointUrlProblem('nonsense', STRICT)).toBe('not a URL');
    expect(endpointUrlProblem('http://127.0.0.1:9000/x', { allowHttp: true, allowPrivate: true })).toBeNull();
  });

  it('refuses, where the delivery connects, a name that resolves to a non-public address', async () => {
    const error = await new Promise<NodeJS.ErrnoException | null>((resolve) =>
      guardedLookup('localhost', {}, (e) => resolve(e)),
    );
    expect(error?.code).toBe('EADDRNOTPUBLIC');
  });
});
