import { describe, expect, it } from 'vitest';
import { readEnv } from './config.ts';
import { quotaDefaultsOf } from './quota-defaults.ts';

describe('QUOTA_DEFAULTS', () => {
  it('reads each quota’s limit, and none when empty', () => {
    const env = readEnv({ QUOTA_DEFAULTS: 'connectors=100, records=1000000,requests_per_day=5000,definitions=20' });
    // Text in the parsed configuration: child processes get it back as environment unchanged.
    expect(env.QUOTA_DEFAULTS).toBe('connectors=100, records=1000000,requests_per_day=5000,definitions=20');
    expect(quotaDefaultsOf(env.QUOTA_DEFAULTS)).toEqual({
      connectors: 100,
      records: 1_000_000,
      requests_per_day: 5000,
      definitions: 20,
    });
    expect(quotaDefaultsOf(readEnv({}).QUOTA_DEFAULTS)).toEqual({});
  });

  it('stops the start naming an unknown quota or a limit that is not a whole number', () => {
    expect(() => readEnv({ QUOTA_DEFAULTS: 'conectors=1' })).toThrow(/QUOTA_DEFAULTS: unknown quota "conectors"/);
    expect(() => readEnv({ QUOTA_DEFAULTS: 'records=-5' })).toThrow(
      /QUOTA_DEFAULTS: records: the limit must be a whole number/,
    );
  });
});
