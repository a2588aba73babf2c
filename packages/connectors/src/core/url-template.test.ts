import { describe, expect, it } from 'vitest';
import { fillUrl, fillUrlOrThrow } from './url-template.ts';

describe('fillUrl', () => {
  it('fills a valid subdomain and refuses a missing or hostile one', () => {
    const template = 'https://{subdomain}.zendesk.com/oauth/tokens';
    expect(fillUrl(template, { subdomain: 'acme-1' })).toEqual({
      url: 'https://acme-1.zendesk.com/oauth/tokens',
    });
    expect(fillUrl(template, {})).toEqual({ invalid: ['subdomain'] });
    expect(fillUrl(template, { subdomain: 'evil.com/x' })).toEqual({ invalid: ['subdomain'] });
    expect(fillUrl('https://api.typeform.com/oauth/token', {})).toEqual({
      url: 'https://api.typeform.com/oauth/token',
    });
  });
});

describe('fillUrlOrThrow', () => {
  it('reports a missing subdomain as invalid config at /config/subdomain', () => {
    expect(() => fillUrlOrThrow('https://{subdomain}.zendesk.com/api/v2', {})).toThrow(
      expect.objectContaining({
        code: 'invalid_request',
        errors: [expect.objectContaining({ path: '/config/subdomain' })],
      }),
    );
  });
});
