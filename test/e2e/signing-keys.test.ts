import { PlatformEnv, signingKeysFrom } from '@conduit/config';
import { OAuthStates } from '@conduit/oauth-consent';
import { decodeCursor, encodeCursor, hashQuery } from '@conduit/search-dsl';
import { AccessTokens } from '@conduit/trusted-calls';
import { Redis } from 'ioredis';
import { decodeProtectedHeader, jwtVerify } from 'jose';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = 'root-signing-secret-for-this-test-0001';
const env = (extra: Record<string, string> = {}) => PlatformEnv.parse({ TOKEN_SIGNING_KEY: ROOT, ...extra });
const BINDING = { connectorId: 'c1', entity: 'things', queryHash: hashQuery({ filter: null }) };
const CLAIMS = { clientId: 'client-a', organizationIds: ['org-a'], generation: 1 };
const STATE = {
  organization_id: 'org-a',
  client_id: 'client-a',
  connector_type: 'Typeform',
  customer_name: 'acme',
  name: 'forms',
  redirect_url: 'https://app.example.test/done',
  config: {},
  replication_config: {},
  pkce: false,
};

/** Bearer tokens, OAuth states and search cursors are signed with separate keys derived from one secret. */
describe('signing keys derived per purpose (HKDF)', () => {
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379/0', { lazyConnect: true });
  const prefix = `test-signing-${process.pid}-${Date.now()}`;
  const states = (keys: ReturnType<typeof signingKeysFrom>) =>
    new OAuthStates({ signingKey: keys.oauthState, redis, prefix, ttlSeconds: 600, now: () => new Date() });
  afterAll(() => redis.quit());
  /** The keys before and after one secret is rotated, and a token, a state and a cursor signed before. */
  const signBeforeRotating = async (rotated: Record<string, string>) => {
    const before = signingKeysFrom(env());
    const after = signingKeysFrom(env(rotated));
    const token = await new AccessTokens(before.accessToken, 600).issue(CLAIMS);
    const state = await states(before).issue(STATE);
    const cursor = encodeCursor(['a'], BINDING, before.searchCursor);
    return { before, after, token, state, cursor };
  };

  it('gives each purpose a different 32-byte key, none of them the configured secret', () => {
    const keys = signingKeysFrom(env());
    const all = [keys.accessToken, keys.oauthState, keys.searchCursor].map((k) => Buffer.from(k).toString('hex'));
    expect(new Set(all).size).toBe(3);
    for (const key of all) expect(key).toHaveLength(64);
    expect(all).not.toContain(Buffer.from(ROOT).toString('hex'));
    // Deterministic: every API instance with the same secret derives the same keys.
    expect(Buffer.from(signingKeysFrom(env()).accessToken).toString('hex')).toBe(all[0]);
  });

  it('a bearer token does not verify with the OAuth-state key, nor with the raw secret', async () => {
    const keys = signingKeysFrom(env());
    const token = await new AccessTokens(keys.accessToken, 600).issue(CLAIMS);
    expect(decodeProtectedHeader(token).alg).toBe('HS256');
    await expect(jwtVerify(token, keys.oauthState)).rejects.toThrow(/signature/);
    await expect(jwtVerify(token, new TextEncoder().encode(ROOT))).rejects.toThrow(/signature/);
    expect(await new AccessTokens(ROOT, 600).verify(token)).toBe('invalid');
    expect(await new AccessTokens(keys.accessToken, 600).verify(token)).toEqual(CLAIMS);
  });

  it('a leaked search-cursor key cannot forge a bearer token or an OAuth state', async () => {
    const keys = signingKeysFrom(env());
    const forgedToken = await new AccessTokens(keys.searchCursor, 600).issue(CLAIMS);
    expect(await new AccessTokens(keys.accessToken, 600).verify(forgedToken)).toBe('invalid');
    const forgedState = await states({ ...keys, oauthState: keys.searchCursor }).issue(STATE);
    expect((await states(keys).verify(forgedState.state)).status).toBe('invalid');
  });

  it('rotating TOKEN_SIGNING_KEY ends every signed value at once: tokens, states and cursors signed before', async () => {
    const { before, after, token, state, cursor } = await signBeforeRotating({
      TOKEN_SIGNING_KEY: 'a-new-root-secret-after-rotation-0001',
    });

    expect(await new AccessTokens(after.accessToken, 600).verify(token)).toBe('invalid');
    expect((await states(after).verify(state.state)).status).toBe('invalid');
    expect(() => decodeCursor(cursor, BINDING, after.searchCursor, 1)).toThrow(/signature/);
    // Signed before, each still verifies with the key it was signed with: the rotation, not the value, ended it.
    expect(await new AccessTokens(before.accessToken, 600).verify(token)).toEqual(CLAIMS);
    expect(decodeCursor(cursor, BINDING, before.searchCursor, 1)).toEqual(['a']);
  });
});
