import { describe, expect, it } from 'vitest';
import { PlatformEnv, productionKeyProblems, readEnv } from './config.ts';

const LONG = 'k'.repeat(32);

describe('productionKeyProblems', () => {
  it('accepts the public defaults in the local profile only', () => {
    expect(productionKeyProblems(PlatformEnv.parse({}))).toEqual([]);
    expect(productionKeyProblems(PlatformEnv.parse({ NODE_ENV: 'production' }))).toEqual([
      'ENCRYPTION_KEY: must be set outside the local profile (the local default is public)',
      'TOKEN_SIGNING_KEY: must be set outside the local profile (the local default is public)',
    ]);
  });

  it('counts bytes, not characters: 31 bytes is short, 32 is enough', () => {
    const env = (key: string) =>
      PlatformEnv.parse({ PROFILE: 'production', ENCRYPTION_KEY: LONG, TOKEN_SIGNING_KEY: key });
    expect(productionKeyProblems(env('a'.repeat(31)))).toEqual([
      'TOKEN_SIGNING_KEY: must be at least 32 bytes outside the local profile',
    ]);
    expect(productionKeyProblems(env('a'.repeat(32)))).toEqual([]);
    // 16 two-byte characters are 32 bytes.
    expect(productionKeyProblems(env('é'.repeat(16)))).toEqual([]);
  });

  it('readEnv refuses the start with every problem named', () => {
    expect(() => readEnv({ PROFILE: 'production', ENCRYPTION_KEY: LONG })).toThrow(
      /invalid configuration:\n {2}TOKEN_SIGNING_KEY: must be set/,
    );
  });
});
