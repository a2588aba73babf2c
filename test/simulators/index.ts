import { startGoogleAds } from './google-ads/simulator.ts';
import { startGoogleDrive } from './google-drive/simulator.ts';
import { startIncidentIo } from './incident-io/simulator.ts';
import type { StartSimulator } from './kit/fixture.ts';
import { startOrb } from './orb/simulator.ts';
import { startPaypalTransaction } from './paypal-transaction/simulator.ts';
import { startSentry } from './sentry/simulator.ts';
import { startSnapchatMarketing } from './snapchat-marketing/simulator.ts';
import { startTypeform } from './typeform/simulator.ts';
import { startZendeskTalk } from './zendesk-talk/simulator.ts';

/** Every kind's simulator, by connector_type. */
export const SIMULATORS: Readonly<Record<string, StartSimulator>> = {
  'Zendesk-Talk': startZendeskTalk,
  'Paypal-Transaction': startPaypalTransaction,
  Typeform: startTypeform,
  Sentry: startSentry,
  'Google-Ads': startGoogleAds,
  'Incident-Io': startIncidentIo,
  Orb: startOrb,
  'Snapchat-Marketing': startSnapchatMarketing,
  'Google-Drive': startGoogleDrive as StartSimulator,
};
