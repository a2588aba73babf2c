import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createDeliverySender } from './delivery-sender.ts';
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

  it('judges IPv6 forms that embed an IPv4 address by that address, and refuses NAT64 local-use and Teredo', () => {
    for (const address of [
      '64:ff9b::127.0.0.1',
      '64:ff9b::a9fe:a9fe',
      '64:ff9b:1::a00:1',
      '64:ff9b:1:2::8.8.8.8',
      '2002:7f00:1::1',
      '2002:c0a8:0101::1',
      '::ffff:0:127.0.0.1',
      '::ffff:0:a00:1',
      '::127.0.0.1',
      '::a9fe:a9fe',
      '::ffff:7f00:1',
      '2001:0:4136:e378:8000:63bf:3fff:fdd2',
    ])
      expect(isPublicAddress(address), address).toBe(false);
    for (const address of ['64:ff9b::8.8.8.8', '2002:808:808::1', '::ffff:0:8.8.8.8', '2001:4860:4860::8888'])
      expect(isPublicAddress(address), address).toBe(true);
    for (const host of ['[64:ff9b::127.0.0.1]', '[2002:7f00:1::1]', '[::ffff:0:127.0.0.1]', '[::127.0.0.1]'])
      expect(endpointUrlProblem(`https://${host}/`, STRICT), host).toMatch(/public address/);
  });

  it('refuses, where the delivery connects, an IP literal that is not public: nothing reaches it', async () => {
    let reached = 0;
    const server = createServer((_req, res) => {
      reached++;
      res.end('ok');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const sender = createDeliverySender({ allowPrivate: false, timeoutMs: 2000 });
    const permissive = createDeliverySender({ allowPrivate: true, timeoutMs: 2000 });
    try {
      for (const host of ['127.0.0.1', '[::ffff:127.0.0.1]', '[::127.0.0.1]', '[64:ff9b::127.0.0.1]']) {
        const outcome = await sender.send(`http://${host}:${port}/hook`, {}, '{}');
        expect(outcome, host).toEqual({ error: expect.stringMatching(/not a public address/) });
      }
      expect(reached).toBe(0);
      // The same server is reachable when the profile allows private addresses: the refusal above was the guard's.
      expect(await permissive.send(`http://127.0.0.1:${port}/hook`, {}, '{}')).toEqual({ status: 200 });
      expect(reached).toBe(1);
    } finally {
      await sender.close();
      await permissive.close();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
