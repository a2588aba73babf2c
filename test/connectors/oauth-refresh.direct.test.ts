import { beforeEach, describe, expect, it } from 'vitest';
import { connectWith } from '../../packages/connectors/src/core/connect.ts';
import { UpstreamError } from '../../packages/connectors/src/core/errors.ts';
import { paypalTransactionConnector } from '../../packages/connectors/src/kinds/paypal-transaction/connector.ts';
import { typeformConnector } from '../../packages/connectors/src/kinds/typeform/connector.ts';
import { simulatorForAll } from '../harness/simulator-for-all.ts';
import { startPaypalTransaction } from '../simulators/paypal-transaction/simulator.ts';
import { startTypeformSimulator } from '../simulators/typeform/simulator.ts';
import { FAST_RETRY } from './conformance.ts';

const images = { entity: 'images', action: 'list', params: {} };

function htmlPage(status: number, body: string) {
  return { status, body, headers: { 'content-type': 'text/html' } };
}

/** Token-endpoint answers that are not a token response, and what each must become. */
const MALFORMED: { label: string; fault: Record<string, unknown>; code: string }[] = [
  { label: 'a 200 HTML page', fault: htmlPage(200, '<html>maintenance</html>'), code: 'upstream_error' },
  {
    label: 'a 200 JSON without access_token',
    fault: { status: 200, body: { token_type: 'bearer' } },
    code: 'upstream_error',
  },
  { label: 'a 200 JSON array', fault: { status: 200, body: [1, 2] }, code: 'upstream_error' },
  {
    label: 'a 200 with a numeric access_token',
    fault: { status: 200, body: { access_token: 42, token_type: 'bearer' } },
    code: 'upstream_error',
  },
  { label: 'a 503 HTML page', fault: htmlPage(503, 'down'), code: 'upstream_error' },
  {
    label: 'a 400 invalid_grant',
    fault: { status: 400, body: { error: 'invalid_grant' } },
    code: 'upstream_auth_failed',
  },
  { label: 'a 401 without a body', fault: { status: 401, body: '' }, code: 'upstream_auth_failed' },
];

describe('OAuth refresh against a misbehaving token endpoint', () => {
  const sim = simulatorForAll(() => startTypeformSimulator({ forms: 2 }));
  beforeEach(() => sim.faults.clear());

  const expiredConnector = (fetchImpl?: typeof fetch) =>
    connectWith(
      typeformConnector,
      {
        access_token: sim.expiredAccessToken,
        refresh_token: sim.initialRefreshToken,
        client_id: sim.clientId,
        client_secret: sim.clientSecret,
      },
      {},
      {
        baseUrl: sim.url,
        tokenUrl: `${sim.url}/oauth/token`,
        retry: FAST_RETRY,
        ...(fetchImpl ? { fetch: fetchImpl } : {}),
      },
    );

  for (const { label, fault, code } of MALFORMED) {
    it(`turns ${label} into ${code}, a typed error without the secrets`, async () => {
      sim.faults.add({ count: 1, pathIncludes: '/oauth/token', ...fault } as never);
      const error = await expiredConnector()
        .execute(images)
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(UpstreamError);
      expect((error as UpstreamError).code).toBe(code);
      const text = `${(error as Error).message} ${JSON.stringify(error)}`;
      expect(text).not.toContain(sim.clientSecret);
      expect(text).not.toContain(sim.initialRefreshToken);
    });
  }

  it('shares one refresh between callers, and one caller hanging up does not fail the others', async () => {
    // The token endpoint is slow: the first caller aborts while the refresh it started is in flight.
    let tokenRequests = 0;
    const slowTokenFetch: typeof fetch = async (input, init) => {
      if (String(input instanceof Request ? input.url : input).endsWith('/oauth/token')) {
        tokenRequests++;
        await new Promise((resolve) => setTimeout(resolve, 300));
      }
      return fetch(input, init);
    };
    const connector = expiredConnector(slowTokenFetch);
    const hangUp = new AbortController();
    const first = connector.execute({ ...images, signal: hangUp.signal }).catch((e: unknown) => e);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const second = connector.execute(images);
    setTimeout(() => hangUp.abort(new Error('client went away')), 50);
    const [firstOutcome, secondOutcome] = await Promise.all([first, second]);
    expect(secondOutcome.type).toBe('json');
    expect(firstOutcome).toBeInstanceOf(Error);
    expect(tokenRequests).toBe(1);
    expect(sim.refreshes).toEqual([sim.initialRefreshToken]);
  });
});

describe('client-credentials tokens against a misbehaving token endpoint', () => {
  const sim = simulatorForAll(() => startPaypalTransaction({ size: 3 }));

  it('turns a non-JSON 200 from the token endpoint into upstream_error', async () => {
    sim.faults.add({ ...htmlPage(200, '<html>oops</html>'), count: 1, pathIncludes: '/oauth2/token' });
    const connector = connectWith(paypalTransactionConnector, sim.credentials, sim.config, {
      baseUrl: sim.baseUrl,
      ...(sim.tokenUrl ? { tokenUrl: sim.tokenUrl } : {}),
      retry: FAST_RETRY,
    });
    const example = sim.examples[0]!;
    const error = await connector.execute(example).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UpstreamError);
    expect((error as UpstreamError).code).toBe('upstream_error');
  });
});
