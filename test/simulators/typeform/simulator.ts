import { FaultInjector } from '../kit/faults.ts';
import { kindOptions, type SimulatorHandle, type SimulatorOptions, simulatorHandle } from '../kit/fixture.ts';
import { listen, type RunningServer } from '../kit/server.ts';
import type { SimulatedWebhooks } from '../kit/webhooks.ts';
import { createTypeformApp, type TypeformAppState } from './app.ts';
import { generateTypeformData, type TypeformData, type TypeformDataOptions } from './data.ts';
import { typeformWebhooks } from './webhooks.ts';

export interface TypeformSimulatorOptions extends TypeformDataOptions {
  port?: number;
  /** Typeform allows 2 requests per second per account; off unless set. */
  requestsPerSecond?: number;
}

export interface TypeformSimulator extends RunningServer {
  readonly data: TypeformData;
  readonly faults: FaultInjector;
  readonly webhooks: SimulatedWebhooks;
  readonly personalToken: string;
  readonly clientId: string;
  readonly clientSecret: string;
  /** An OAuth access token the API no longer accepts, and the refresh token that renews it. */
  readonly expiredAccessToken: string;
  readonly initialRefreshToken: string;
  readonly refreshes: string[];
  /** Adds a valid OAuth access token (as if a refresh had happened elsewhere). */
  issueAccessToken(token: string): void;
}

export async function startTypeformSimulator(options: TypeformSimulatorOptions = {}): Promise<TypeformSimulator> {
  const data = generateTypeformData(options);
  const state: TypeformAppState = {
    data,
    faults: new FaultInjector(),
    personalToken: 'tfp_personal_token_0123456789abcdef',
    clientId: 'typeform-client-id',
    clientSecret: 'typeform-client-secret-value',
    accessTokens: new Set(),
    refreshTokens: new Set(['tfp-rt-initial-0123456789']),
    refreshes: [],
    requestsPerSecond: options.requestsPerSecond,
  };
  const server = await listen(createTypeformApp(state), options.port ?? 0);
  return {
    ...server,
    data,
    faults: state.faults,
    webhooks: typeformWebhooks(data),
    personalToken: state.personalToken,
    clientId: state.clientId,
    clientSecret: state.clientSecret,
    expiredAccessToken: 'tfp-at-expired-0123456789',
    initialRefreshToken: 'tfp-rt-initial-0123456789',
    refreshes: state.refreshes,
    issueAccessToken: (token) => state.accessTokens.add(token),
  };
}

/** The generic handle (kit/fixture.ts) over the Typeform simulator. */
export async function startTypeform(options: SimulatorOptions = {}): Promise<SimulatorHandle> {
  const startDate = '2024-01-01T00:00:00Z';
  const since = Date.parse(startDate);
  const sim = await startTypeformSimulator({
    ...kindOptions(options, 'forms'),
    // More than two 1000-response pages, so replication follows `after` tokens.
    firstFormResponses: 2300,
  });
  const form = sim.data.forms.find((f) => (sim.data.webhooks.get(f.id) ?? []).length > 0) ?? sim.data.forms[0]!;
  return simulatorHandle(sim, {
    connectorType: 'Typeform',
    tokenUrl: `${sim.url}/oauth/token`,
    credentials: { access_token: sim.personalToken },
    badCredentials: { access_token: 'tfp_wrong_token_0000000000000000' },
    startDate,
    examples: [
      { entity: 'forms', action: 'list', params: { page: 1, page_size: 2 } },
      { entity: 'forms', action: 'get', params: { form_id: form.id } },
      {
        entity: 'responses',
        action: 'list',
        params: { form_id: form.id, page_size: 3, since: '2023-06-01T00:00:00Z', completed: true },
      },
      { entity: 'webhooks', action: 'list', params: { form_id: form.id } },
      { entity: 'workspaces', action: 'list', params: { page: 1, page_size: 2 } },
      { entity: 'images', action: 'list', params: {} },
      { entity: 'themes', action: 'list', params: { page_size: 10 } },
    ],
    expectedKeys: (entity) => {
      switch (entity) {
        case 'forms':
        case 'workspaces':
        case 'images':
        case 'themes':
          return sim.data[entity].map((r) => r.id);
        case 'responses':
          return [...sim.data.responses.values()]
            .flat()
            .filter((r) => Date.parse(r.submitted_at) >= since)
            .map((r) => r.response_id);
        case 'webhooks':
          return [...sim.data.webhooks.values()].flat().map((w) => w.id);
        default:
          throw new Error(`Typeform has no searchable entity '${entity}'`);
      }
    },
  });
}
