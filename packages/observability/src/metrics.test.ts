import { describe, expect, it } from 'vitest';
import { metricsAuthorized } from './metrics.ts';

describe('metricsAuthorized', () => {
  it('is open when METRICS_TOKEN is unset', () => {
    expect(metricsAuthorized(undefined, undefined)).toBe(true);
    expect(metricsAuthorized(undefined, 'Bearer anything')).toBe(true);
  });

  it('needs exactly the bearer token when METRICS_TOKEN is set', () => {
    expect(metricsAuthorized('s3cret-token', 'Bearer s3cret-token')).toBe(true);
    expect(metricsAuthorized('s3cret-token', undefined)).toBe(false);
    expect(metricsAuthorized('s3cret-token', 'Bearer s3cret-tokem')).toBe(false);
    expect(metricsAuthorized('s3cret-token', 'Bearer s3cret-token ')).toBe(false);
    expect(metricsAuthorized('s3cret-token', 's3cret-token')).toBe(false);
  });
});
