import { describe, expect, it } from 'vitest';
import { basicCredentials, bearerToken } from './auth-header.ts';

describe('Authorization header parsing shared by the simulators (RFC 9110 §11)', () => {
  it('reads the scheme case-insensitively', () => {
    for (const scheme of ['Bearer', 'bearer', 'BEARER', 'bEaReR']) expect(bearerToken(`${scheme} tok-1`)).toBe('tok-1');
    const encoded = Buffer.from('id:se:cret').toString('base64');
    expect(basicCredentials(`basic ${encoded}`)).toEqual({ user: 'id', password: 'se:cret' });
  });

  it('refuses other schemes, a missing token and a missing header', () => {
    expect(bearerToken('Basic abc')).toBeUndefined();
    expect(bearerToken('Bearer')).toBeUndefined();
    expect(bearerToken('Bearertok')).toBeUndefined();
    expect(bearerToken(undefined)).toBeUndefined();
    expect(basicCredentials(`Basic ${Buffer.from('no-colon').toString('base64')}`)).toBeUndefined();
  });
});
