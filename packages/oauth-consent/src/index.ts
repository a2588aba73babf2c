export {
  type CallbackQuery,
  type ConsentFailure,
  type ConsentOutcome,
  completeConsent,
  EXPIRED_STATE,
} from './callback.ts';
export { type ConsentStarted, defaultStartDate, OAuthInitiateBody, startConsent } from './initiate.ts';
export { CALLBACK_PATH, type OAuthDeps, type OAuthDepsSource, oauthDepsFrom } from './oauth-deps.ts';
export { type OAuthStateClaims, OAuthStates } from './oauth-state.ts';
export type { ConsentConnector, ConsentPorts } from './ports.ts';
export { redirectWith } from './redirect-url.ts';
