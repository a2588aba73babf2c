import { afterEach, describe, expect, it, vi } from 'vitest';
import { AccessTokens } from './access-tokens.ts';

describe('AccessTokens.verify', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('answers a remembered token with its claims, then expired once its exp passes', async () => {
    vi.useFakeTimers({ now: Date.parse('2026-01-01T00:00:00Z'), toFake: ['Date'] });
    const tokens = new AccessTokens('a-signing-key-long-enough-for-hs256', 60);
    const token = await tokens.issue({ clientId: 'c1', organizationIds: ['o1'], generation: 3 });
    expect(await tokens.verify(token)).toEqual({ clientId: 'c1', organizationIds: ['o1'], generation: 3 });
    expect(await tokens.verify(token)).toEqual({ clientId: 'c1', organizationIds: ['o1'], generation: 3 });
    vi.setSystemTime(Date.parse('2026-01-01T00:00:59Z'));
    expect(await tokens.verify(token)).toEqual({ clientId: 'c1', organizationIds: ['o1'], generation: 3 });
    vi.setSystemTime(Date.parse('2026-01-01T00:01:00Z'));
    expect(await tokens.verify(token)).toBe('expired');
    expect(await tokens.verify(token)).toBe('expired');
  });

  it('does not let a remembered token vouch for a tampered copy or another key', async () => {
    const tokens = new AccessTokens('a-signing-key-long-enough-for-hs256', 600);
    const token = await tokens.issue({ clientId: 'c1', organizationIds: ['o1'], generation: 3 });
    expect(await tokens.verify(token)).not.toBe('invalid');
    const [header, payload, signature] = token.split('.') as [string, string, string];
    const widened = Buffer.from(
      JSON.stringify({ ...JSON.parse(Buffer.from(payload, 'base64url').toString()), orgs: ['o2'] }),
    ).toString('base64url');
    expect(await tokens.verify(`${header}.${widened}.${signature}`)).toBe('invalid');
    // The first character carries 6 significant bits (the last one's low bits are padding and may decode alike).
    const flipped = `${signature.startsWith('A') ? 'B' : 'A'}${signature.slice(1)}`;
    expect(await tokens.verify(`${header}.${payload}.${flipped}`)).toBe('invalid');
    const other = new AccessTokens('another-signing-key-entirely-different', 600);
    expect(await other.verify(token)).toBe('invalid');
  });
});
