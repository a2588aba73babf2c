export { type ConsentFailure, type ConsentOutcome, completeConsent, EXPIRED_STATE } from './callback.ts';
export { OAuthInitiateBody, startConsent } from './initiate.ts';
export { CALLBACK_PATH, type OAuthDeps, oauthDepsFrom } from './oauth-deps.ts';
export { OAUTH_PROVIDERS, type OAuthProviderSpec } from './oauth-providers.ts';
export { OAuthStates } from './oauth-state.ts';
export type { ConsentConnector, ConsentPorts } from './ports.ts';
export { redirectWith } from './redirect-url.ts';
