import { describe, expect, it } from 'vitest';
import { credentialsFrom, OAUTH_PROVIDERS, oauthProviders } from './oauth-providers.ts';

const typeformClient = { OAUTH_CLIENT_ID_TYPEFORM: 'tf-id', OAUTH_CLIENT_SECRET_TYPEFORM: 'tf-secret' };

describe('oauthProviders', () => {
  it('declares exactly the kinds whose vendor offers an authorization-code flow', () => {
    expect(Object.keys(OAUTH_PROVIDERS).sort()).toEqual(
      ['Google-Ads', 'Google-Drive', 'Snapchat-Marketing', 'Typeform', 'Zendesk-Talk'].sort(),
    );
  });

  it('resolves a configured kind case-insensitively with its default URLs', () => {
    const lookup = oauthProviders(typeformClient).lookup('typeform');
    expect(lookup).toMatchObject({
      status: 'ok',
      provider: {
        connectorType: 'Typeform',
        clientId: 'tf-id',
        clientSecret: 'tf-secret',
        authorizeUrl: 'https://api.typeform.com/oauth/authorize',
        tokenUrl: 'https://api.typeform.com/oauth/token',
      },
    });
  });

  it('applies OAUTH_AUTHORIZE_URL_<KIND> and CONNECTOR_TOKEN_URL_<KIND> overrides', () => {
    const lookup = oauthProviders({
      OAUTH_CLIENT_ID_ZENDESK_TALK: 'z',
      OAUTH_CLIENT_SECRET_ZENDESK_TALK: 'zs',
      OAUTH_AUTHORIZE_URL_ZENDESK_TALK: 'http://127.0.0.1:9/{subdomain}/authorize',
      CONNECTOR_TOKEN_URL_ZENDESK_TALK: 'http://127.0.0.1:9/{subdomain}/token',
    }).lookup('Zendesk-Talk');
    expect(lookup.status === 'ok' && [lookup.provider.authorizeUrl, lookup.provider.tokenUrl]).toEqual([
      'http://127.0.0.1:9/{subdomain}/authorize',
      'http://127.0.0.1:9/{subdomain}/token',
    ]);
  });

  it('reports what is missing for a kind without an OAuth client, and unsupported for API-key kinds', () => {
    const providers = oauthProviders({ OAUTH_CLIENT_ID_GOOGLE_ADS: 'g' });
    expect(providers.lookup('Google-Ads')).toEqual({
      status: 'not_configured',
      missing: ['OAUTH_CLIENT_SECRET_GOOGLE_ADS', 'OAUTH_DEVELOPER_TOKEN_GOOGLE_ADS'],
    });
    for (const kind of ['Orb', 'Paypal-Transaction', 'Sentry', 'Incident-Io']) {
      expect(providers.lookup(kind)).toEqual({ status: 'unsupported' });
    }
    expect(oauthProviders(typeformClient).configured()).toEqual(['Typeform']);
  });
});

describe('credentialsFrom', () => {
  it('fills credential fields from the token response, the client and the environment', () => {
    const lookup = oauthProviders({
      OAUTH_CLIENT_ID_GOOGLE_ADS: 'g-id',
      OAUTH_CLIENT_SECRET_GOOGLE_ADS: 'g-secret',
      OAUTH_DEVELOPER_TOKEN_GOOGLE_ADS: 'dev-token',
    }).lookup('Google-Ads');
    if (lookup.status !== 'ok') throw new Error('expected a configured provider');
    expect(credentialsFrom(lookup.provider, { access_token: 'at', refresh_token: 'rt' })).toEqual({
      access_token: 'at',
      refresh_token: 'rt',
      client_id: 'g-id',
      client_secret: 'g-secret',
      developer_token: 'dev-token',
    });
    expect(credentialsFrom(lookup.provider, { access_token: 'at' })).not.toHaveProperty('refresh_token');
  });
});
