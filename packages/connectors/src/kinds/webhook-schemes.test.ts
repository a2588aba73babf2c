import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { WebhookDelivery } from '../core/webhook-scheme.ts';
import { declaredWebhookScheme } from '../definitions/declared-webhooks.ts';
import type { DefinedEntity, DefinedWebhooks } from '../definitions/definition-format.ts';
import { checkDefinition } from '../definitions/definition-problems.ts';
import { webhookSchemeFor } from './registry.ts';

const NOW = Date.parse('2025-03-01T12:00:00Z');
const SECRET = 'webhook-secret-123';
const SVIX_SECRET = `whsec_${Buffer.from('incident-io-signing-key').toString('base64')}`;

function delivery(headers: Record<string, string>, body: string): WebhookDelivery {
  const lower = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
  return { headers: (name) => lower[name.toLowerCase()], body: Buffer.from(body) };
}

const hmac = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data);

/** Each vendor's signing, written from its documentation (independently of the verifiers). */
const vendors = [
  {
    kind: 'Orb',
    secret: SECRET,
    body: JSON.stringify({ id: 'evt_1', type: 'customer.edited', customer: { id: 'cus_1' }, properties: {} }),
    sign: (body: string, secret: string, at: number) => {
      const ts = new Date(at).toISOString().replace('Z', '');
      return { 'X-Orb-Timestamp': ts, 'X-Orb-Signature': `v1=${hmac(secret, `v1:${ts}:${body}`).digest('hex')}` };
    },
    signatureHeader: 'X-Orb-Signature',
    expected: { eventId: 'evt_1', records: [{ entity: 'customers', key: 'cus_1', params: { customer_id: 'cus_1' } }] },
  },
  {
    kind: 'Typeform',
    secret: SECRET,
    body: JSON.stringify({
      event_id: 'LtWXD3crgy',
      event_type: 'form_response',
      form_response: {
        form_id: 'lT4Z3j',
        token: 'a3a12ec67a1365927098a606107fac15',
        submitted_at: '2025-03-01T11:59:00Z',
      },
    }),
    sign: (body: string, secret: string) => ({
      'Typeform-Signature': `sha256=${hmac(secret, body).digest('base64')}`,
    }),
    signatureHeader: 'Typeform-Signature',
    stale: false,
    expected: {
      eventId: 'LtWXD3crgy',
      records: [
        {
          entity: 'responses',
          key: 'a3a12ec67a1365927098a606107fac15',
          params: { form_id: 'lT4Z3j', included_response_ids: 'a3a12ec67a1365927098a606107fac15' },
          via: 'list',
        },
      ],
    },
  },
  {
    kind: 'Sentry',
    secret: SECRET,
    body: JSON.stringify({
      action: 'resolved',
      data: { issue: { id: '1170820242', url: 'https://sentry.io/api/0/organizations/test-org/issues/1170820242/' } },
      installation: { uuid: 'a8e5d37a-696c-4c54-adb5-b3f28d64c7de' },
    }),
    sign: (body: string, secret: string, at: number) => ({
      'Request-ID': 'req-1',
      'Sentry-Hook-Resource': 'issue',
      'Sentry-Hook-Timestamp': String(Math.floor(at / 1000)),
      'Sentry-Hook-Signature': hmac(secret, body).digest('hex'),
    }),
    signatureHeader: 'Sentry-Hook-Signature',
    expected: {
      eventId: 'req-1',
      records: [
        { entity: 'issues', key: '1170820242', params: { organization_slug: 'test-org', issue_id: '1170820242' } },
      ],
    },
  },
  {
    kind: 'Incident-Io',
    secret: SVIX_SECRET,
    body: JSON.stringify({
      event_type: 'public_incident.incident_updated_v2',
      'public_incident.incident_updated_v2': { id: '01FDAG4SAP5TYPT98WGR2N7W91', name: 'Our database is sad' },
    }),
    sign: (body: string, secret: string, at: number) => {
      const ts = String(Math.floor(at / 1000));
      const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
      return {
        'webhook-id': 'msg_2KWPBgLlAfxdpx2AI54pPJ85f4W',
        'webhook-timestamp': ts,
        'webhook-signature': `v1,${hmac(key, `msg_2KWPBgLlAfxdpx2AI54pPJ85f4W.${ts}.${body}`).digest('base64')}`,
      };
    },
    signatureHeader: 'webhook-signature',
    expected: {
      eventId: 'msg_2KWPBgLlAfxdpx2AI54pPJ85f4W',
      records: [
        { entity: 'incidents', key: '01FDAG4SAP5TYPT98WGR2N7W91', params: { id: '01FDAG4SAP5TYPT98WGR2N7W91' } },
      ],
    },
  },
  {
    kind: 'Zendesk-Talk',
    secret: SECRET,
    body: JSON.stringify({
      type: 'zen:event-type:phone_number.updated',
      account_id: 12514403,
      id: '2b24ef10-19d4-4740-93cf-8f98ec4776c0',
      time: '2025-03-01T11:59:58Z',
      zendesk_event_version: '2022-06-20',
      subject: 'zen:phone_number:6596848315901',
      detail: { id: '6596848315901' },
      event: {},
    }),
    sign: (body: string, secret: string, at: number) => {
      const ts = new Date(at).toISOString().replace('.000', '');
      return {
        'X-Zendesk-Webhook-Signature-Timestamp': ts,
        'X-Zendesk-Webhook-Signature': hmac(secret, ts + body).digest('base64'),
      };
    },
    signatureHeader: 'X-Zendesk-Webhook-Signature',
    expected: {
      eventId: '2b24ef10-19d4-4740-93cf-8f98ec4776c0',
      records: [{ entity: 'phone_numbers', key: '6596848315901', params: { phone_number_id: 6596848315901 } }],
    },
  },
] as const;

describe.each(vendors)('$kind webhook scheme', (vendor) => {
  const scheme = webhookSchemeFor(vendor.kind)!;
  const signed = (overrides: { body?: string; secret?: string; at?: number } = {}) =>
    vendor.sign(overrides.body ?? vendor.body, overrides.secret ?? vendor.secret, overrides.at ?? NOW - 2_000);

  it('accepts the vendor’s signature over the raw body and reads the event id and the record it names', () => {
    const call = delivery(signed(), vendor.body);
    expect(scheme.verify(call, vendor.secret, NOW)).toEqual({ ok: true });
    const parsed = scheme.parse(call, JSON.parse(vendor.body), {});
    expect(parsed.eventId).toBe(vendor.expected.eventId);
    expect(parsed.records).toMatchObject(vendor.expected.records);
  });

  it('refuses a signature made with another secret', () => {
    const other =
      vendor.kind === 'Incident-Io' ? `whsec_${Buffer.from('another key').toString('base64')}` : 'other-secret';
    expect(scheme.verify(delivery(signed({ secret: other }), vendor.body), vendor.secret, NOW).ok).toBe(false);
  });

  it('refuses a body changed after signing (even by one space)', () => {
    expect(scheme.verify(delivery(signed(), `${vendor.body} `), vendor.secret, NOW).ok).toBe(false);
  });

  it('refuses a call without its signature header', () => {
    const headers: Record<string, string> = { ...signed() };
    delete headers[vendor.signatureHeader];
    expect(scheme.verify(delivery(headers, vendor.body), vendor.secret, NOW).ok).toBe(false);
  });

  it.skipIf('stale' in vendor)('refuses signatures 10 minutes old or 10 minutes ahead, accepts 4 minutes', () => {
    expect(scheme.verify(delivery(signed({ at: NOW - 10 * 60_000 }), vendor.body), vendor.secret, NOW)).toEqual({
      ok: false,
      reason: 'stale signature timestamp',
    });
    expect(scheme.verify(delivery(signed({ at: NOW + 10 * 60_000 }), vendor.body), vendor.secret, NOW).ok).toBe(false);
    expect(scheme.verify(delivery(signed({ at: NOW - 4 * 60_000 }), vendor.body), vendor.secret, NOW).ok).toBe(true);
  });

  it('reads bodies of other shapes as a payload error or an event naming nothing, never a crash', () => {
    for (const payload of [null, [], 'text', 42, {}, { id: {}, type: 7 }]) {
      const call = delivery(signed(), JSON.stringify(payload));
      try {
        expect(scheme.parse(call, payload, {}).records).toEqual([]);
      } catch (error) {
        expect((error as Error).name).toBe('WebhookPayloadError');
      }
    }
  });
});

describe('webhook schemes', () => {
  it('exist for exactly the five kinds that sign their webhooks (docs/api.md)', () => {
    for (const kind of ['Orb', 'typeform', 'SENTRY', 'Incident-Io', 'Zendesk-Talk'])
      expect(webhookSchemeFor(kind)).toBeDefined();
    for (const kind of ['Paypal-Transaction', 'Google-Ads', 'Snapchat-Marketing', 'Google-Drive']) {
      expect(webhookSchemeFor(kind)).toBeUndefined();
    }
  });

  it('Orb: several signatures, one valid, is enough; a timestamp with an offset is read as such', () => {
    const scheme = webhookSchemeFor('Orb')!;
    const body = '{"id":"evt_2","type":"invoice.issued","invoice":{"id":"inv_1"}}';
    const ts = '2025-03-01T13:59:00+02:00';
    const good = createHmac('sha256', SECRET).update(`v1:${ts}:${body}`).digest('hex');
    const call = delivery({ 'x-orb-timestamp': ts, 'x-orb-signature': `v1=deadbeef v1=${good}` }, body);
    expect(scheme.verify(call, SECRET, NOW)).toEqual({ ok: true });
    expect(scheme.parse(call, JSON.parse(body), {}).records).toMatchObject([{ entity: 'invoices', key: 'inv_1' }]);
  });

  it('incident.io: secrets must be whsec_ + base64; status updates name the nested incident', () => {
    const scheme = webhookSchemeFor('Incident-Io')!;
    expect(scheme.checkSecret('plain-secret')).not.toBeNull();
    expect(scheme.checkSecret(SVIX_SECRET)).toBeNull();
    const type = 'public_incident.incident_status_updated_v2';
    const parsed = scheme.parse(
      delivery({ 'webhook-id': 'msg_1' }, ''),
      { event_type: type, [type]: { incident: { id: 'inc_9' }, new_status: {} } },
      {},
    );
    expect(parsed.records).toMatchObject([{ entity: 'incidents', key: 'inc_9' }]);
  });

  it('Sentry: the organization falls back to the connector config; other resources name nothing', () => {
    const scheme = webhookSchemeFor('Sentry')!;
    const call = delivery({ 'request-id': 'r', 'sentry-hook-resource': 'issue' }, '');
    const parsed = scheme.parse(
      call,
      { action: 'created', data: { issue: { id: '5' } } },
      { organization_slug: 'acme' },
    );
    expect(parsed.records).toMatchObject([{ params: { organization_slug: 'acme', issue_id: '5' } }]);
    const comment = delivery({ 'request-id': 'r2', 'sentry-hook-resource': 'comment' }, '');
    expect(scheme.parse(comment, { action: 'created', data: { issue_id: '5' } }, {}).records).toEqual([]);
  });
});

/**
 * The five schemes said as data (docs/definitions.md, "Webhooks"): the same vendor signatures, checked by the
 * declared scheme a definition would carry instead of the kind's code.
 */
const entity = (get?: string) =>
  ({
    key: 'id',
    fields: { id: 'string!' },
    ...(get ? { get: { path: get } } : {}),
    replication: { mode: 'full_refresh' },
  }) as DefinedEntity;
const declaredSchemes: Record<
  (typeof vendors)[number]['kind'],
  { webhooks: DefinedWebhooks; entities: Record<string, DefinedEntity> }
> = {
  Orb: {
    webhooks: {
      signature: {
        header: 'X-Orb-Signature',
        algorithm: 'sha256',
        encoding: 'hex',
        prefix: 'v1=',
        separator: ' ',
        signed: 'v1:{timestamp}:{body}',
        timestamp_header: 'X-Orb-Timestamp',
        timestamp_format: 'iso',
      },
      events: {
        entity_at: 'type',
        entity_split: '.',
        entities: { customer: 'customers', subscription: 'subscriptions', invoice: 'invoices' },
        key_at: '{entity}.id',
        id_at: 'id',
      },
    },
    entities: {
      customers: entity('/customers/{customer_id}'),
      subscriptions: entity('/subscriptions/{subscription_id}'),
      invoices: entity('/invoices/{invoice_id}'),
    },
  },
  Typeform: {
    webhooks: {
      signature: {
        header: 'Typeform-Signature',
        algorithm: 'sha256',
        encoding: 'base64',
        prefix: 'sha256=',
        signed: '{body}',
      },
      events: {
        entity_at: 'event_type',
        entities: { form_response: 'responses' },
        key_at: 'form_response.token',
        id_at: 'event_id',
        params: { form_id: 'form_response.form_id', included_response_ids: 'form_response.token' },
      },
    },
    entities: { responses: entity() },
  },
  Sentry: {
    webhooks: {
      signature: {
        header: 'Sentry-Hook-Signature',
        algorithm: 'sha256',
        encoding: 'hex',
        signed: '{body}',
        timestamp_header: 'Sentry-Hook-Timestamp',
      },
      events: {
        entity_at: 'header:Sentry-Hook-Resource',
        entities: { issue: 'issues' },
        key_at: 'data.issue.id',
        id_at: 'header:Request-ID',
        params: {
          organization_slug: { at: 'data.issue.url', match: '/organizations/([^/]+)/' },
          issue_id: 'data.issue.id',
        },
      },
    },
    entities: { issues: entity('/organizations/{organization_slug}/issues/{issue_id}') },
  },
  'Incident-Io': {
    webhooks: {
      signature: {
        header: 'webhook-signature',
        algorithm: 'sha256',
        encoding: 'base64',
        prefix: 'v1,',
        separator: ' ',
        signed: '{id}.{timestamp}.{body}',
        timestamp_header: 'webhook-timestamp',
        id_header: 'webhook-id',
        secret: { encoding: 'base64', prefix: 'whsec_' },
      },
      events: {
        entity_at: 'event_type',
        entities: { 'public_incident.incident_updated_v2': 'incidents' },
        key_at: '{event}.id',
        id_at: 'header:webhook-id',
      },
    },
    entities: { incidents: entity('/v2/incidents/{id}') },
  },
  'Zendesk-Talk': {
    webhooks: {
      signature: {
        header: 'X-Zendesk-Webhook-Signature',
        algorithm: 'sha256',
        encoding: 'base64',
        signed: '{timestamp}{body}',
        timestamp_header: 'X-Zendesk-Webhook-Signature-Timestamp',
        timestamp_format: 'iso',
      },
      events: {
        entity_at: 'type',
        entities: { 'zen:event-type:phone_number.updated': 'phone_numbers' },
        key_at: 'detail.id',
        id_at: 'id',
      },
    },
    entities: { phone_numbers: entity('/phone_numbers/{phone_number_id}') },
  },
};

describe.each(vendors)('$kind webhook scheme, said as data', (vendor) => {
  const declared = declaredSchemes[vendor.kind];
  const scheme = declaredWebhookScheme(declared.webhooks, declared.entities);
  const signed = (overrides: { body?: string; secret?: string; at?: number } = {}) =>
    vendor.sign(overrides.body ?? vendor.body, overrides.secret ?? vendor.secret, overrides.at ?? NOW - 2_000);

  it('is a valid part of a definition', () => {
    const check = checkDefinition({
      name: 'As-Data',
      base_url: 'https://api.vendor.example',
      auth: { type: 'bearer' },
      entities: Object.fromEntries(
        Object.entries(declared.entities).map(([name, e]) => [
          name,
          { ...e, list: { path: '/x', records: null, paging: { type: 'none' } }, searchable: 'all' },
        ]),
      ),
      webhooks: declared.webhooks,
    });
    expect(check.ok ? [] : check.problems).toEqual([]);
  });

  it('accepts the vendor’s signature and names the same event and record as the kind’s code', () => {
    const call = delivery(signed(), vendor.body);
    expect(scheme.verify(call, vendor.secret, NOW)).toEqual({ ok: true });
    const parsed = scheme.parse(call, JSON.parse(vendor.body), {});
    const [expected] = vendor.expected.records;
    expect(parsed.eventId).toBe(vendor.expected.eventId);
    expect(parsed.records).toEqual([
      expect.objectContaining({
        entity: expected.entity,
        key: expected.key,
        via: 'via' in expected ? expected.via : 'get',
      }),
    ]);
    expect(Object.keys(parsed.records[0]!.params).sort()).toEqual(Object.keys(expected.params).sort());
  });

  it('refuses another secret, a changed body and a missing signature', () => {
    const other =
      vendor.kind === 'Incident-Io' ? `whsec_${Buffer.from('another key').toString('base64')}` : 'other-secret';
    expect(scheme.verify(delivery(signed({ secret: other }), vendor.body), vendor.secret, NOW).ok).toBe(false);
    expect(scheme.verify(delivery(signed(), `${vendor.body} `), vendor.secret, NOW).ok).toBe(false);
    const headers: Record<string, string> = { ...signed() };
    delete headers[vendor.signatureHeader];
    expect(scheme.verify(delivery(headers, vendor.body), vendor.secret, NOW).ok).toBe(false);
  });

  it.skipIf('stale' in vendor)('refuses a signature 10 minutes old or ahead', () => {
    expect(scheme.verify(delivery(signed({ at: NOW - 10 * 60_000 }), vendor.body), vendor.secret, NOW).ok).toBe(false);
    expect(scheme.verify(delivery(signed({ at: NOW + 10 * 60_000 }), vendor.body), vendor.secret, NOW).ok).toBe(false);
    expect(scheme.verify(delivery(signed({ at: NOW - 4 * 60_000 }), vendor.body), vendor.secret, NOW).ok).toBe(true);
  });
});
