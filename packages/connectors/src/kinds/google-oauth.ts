import type { ConsentSpec } from '../core/catalog.ts';

/**
 * Google's OAuth 2.0 endpoints, shared by the Google kinds (Ads, Drive): the client goes as form fields.
 * https://developers.google.com/identity/protocols/oauth2/web-server
 */
export const GOOGLE_OAUTH = {
  tokenUrl: 'https://oauth2.googleapis.com/token',
  clientAuth: 'form',
} as const;

/** Google's consent settings other than scopes and credentials. */
export const GOOGLE_CONSENT = {
  authorizeUrl: 'https://accounts.google.com/o/oauth2/v2/auth',
  pkce: true,
  // Without offline access and a forced consent prompt, Google omits the refresh token on re-consent
  // (https://developers.google.com/identity/protocols/oauth2/web-server#offline).
  authorizeParams: { access_type: 'offline', prompt: 'consent', include_granted_scopes: 'true' },
} as const satisfies Partial<ConsentSpec>;
