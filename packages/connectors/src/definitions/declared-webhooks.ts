import { createHash, createHmac } from 'node:crypto';
import { at } from '../core/paging.ts';
import { idOf, isObject, OK, refused, sameSignature, unixSecondsMs } from '../core/webhook-hmac.ts';
import {
  type HeaderLookup,
  type ParsedWebhook,
  type Verification,
  WebhookPayloadError,
  type WebhookRecordRef,
  type WebhookScheme,
} from '../core/webhook-scheme.ts';
import type { DefinedEntity, DefinedWebhooks } from './definition-format.ts';
import { placeholders } from './definition-problems.ts';

/**
 * A vendor's webhook scheme as data (docs/definitions.md): which header holds the signature, the HMAC and its
 * encoding, what is signed (`{timestamp}.{body}`), how fresh the signing time must be, and where an event names its
 * entity and record. As for the built-in kinds, the signature is checked over the raw bytes before anything is
 * parsed, and an event is only a signal: the worker re-reads the record it names.
 */
export function declaredWebhookScheme(
  webhooks: DefinedWebhooks,
  entities: Readonly<Record<string, DefinedEntity>> = {},
): WebhookScheme {
  const { signature, events } = webhooks;
  const keyOf = (secret: string): Buffer | null => {
    if (signature.secret?.prefix && !secret.startsWith(signature.secret.prefix)) return null;
    const rest = secret.slice(signature.secret?.prefix?.length ?? 0);
    if (signature.secret?.encoding !== 'base64') return Buffer.from(rest, 'utf8');
    const key = Buffer.from(rest, 'base64');
    return key.length > 0 && key.toString('base64').replace(/=+$/, '') === rest.replace(/=+$/, '') ? key : null;
  };
  const requirement = signature.secret?.prefix
    ? `must be '${signature.secret.prefix}' followed by the ${signature.secret.encoding === 'base64' ? 'base64 ' : ''}key`
    : 'must be a base64 key';

  return {
    checkSecret: (secret) => (keyOf(secret) === null ? requirement : null),

    verify({ headers, body }, secret, nowMs): Verification {
      const given = headers(signature.header);
      if (!given) return refused(`missing ${signature.header}`);
      const timestamp = signature.timestamp_header ? headers(signature.timestamp_header) : undefined;
      if (signature.timestamp_header) {
        if (!timestamp) return refused(`missing ${signature.timestamp_header}`);
        const signedAt = signature.timestamp_format === 'iso' ? isoMs(timestamp) : unixSecondsMs(timestamp);
        const tolerance = (signature.tolerance_s ?? 300) * 1000;
        if (!Number.isFinite(signedAt)) return refused('unreadable signature timestamp');
        if (Math.abs(nowMs - signedAt) > tolerance) return refused('stale signature timestamp');
      }
      const id = signature.id_header ? headers(signature.id_header) : undefined;
      if (signature.id_header && !id) return refused(`missing ${signature.id_header}`);
      const key = keyOf(secret);
      if (key === null) return refused('the stored secret is not one of this scheme');
      const hmac = createHmac(signature.algorithm, key);
      for (const part of signed(signature.signed, { timestamp: timestamp ?? '', id: id ?? '' }, body))
        hmac.update(part);
      const expected = hmac.digest(signature.encoding);
      const entries = signature.separator ? given.split(signature.separator) : [given];
      for (const entry of entries) {
        const prefix = signature.prefix ?? '';
        if (entry.startsWith(prefix) && sameSignature(expected, entry.slice(prefix.length))) return OK;
      }
      return refused('signature does not match');
    },

    parse({ headers, body }, payload): ParsedWebhook {
      if (!isObject(payload)) throw new WebhookPayloadError('not an event: the body is not a JSON object');
      const named = eventValue(events.entity_at, payload, headers);
      if (typeof named !== 'string' || named === '') throw new WebhookPayloadError(`no entity at ${events.entity_at}`);
      const eventEntity = events.entity_split ? (named.split(events.entity_split)[0] ?? named) : named;
      const entity = events.entities ? events.entities[eventEntity] : eventEntity;
      const eventId =
        idOf(events.id_at ? eventValue(events.id_at, payload, headers) : undefined) ??
        (signature.id_header ? headers(signature.id_header) : undefined) ??
        createHash('sha256').update(body).digest('hex');
      const declared = entity !== undefined && Object.hasOwn(entities, entity) ? entities[entity] : undefined;
      if (!declared?.replication || entity === undefined) return { eventId, type: named, records: [] };
      const key = idOf(keyValue(events.key_at.replaceAll('{entity}', eventEntity), named, payload, headers));
      if (!key) throw new WebhookPayloadError(`no record key at ${events.key_at}`);
      const params = events.params ? eventParams(events.params, named, payload, headers) : undefined;
      return { eventId, type: named, records: [recordRef(entity, declared, key, params)] };
    },
  };
}

/**
 * The record to re-read: through `get` (the key as the path's placeholder, unless the event's params say more), or
 * the list filtered to it when the entity has no get.
 */
function recordRef(
  entity: string,
  declared: DefinedEntity,
  key: string,
  params: Record<string, unknown> | undefined,
): WebhookRecordRef {
  const param = declared.get ? placeholders(declared.get.path)[0] : undefined;
  if (param) return { entity, key, params: params ?? { [param]: key }, via: 'get' };
  return { entity, key, params: params ?? {}, via: 'list' };
}

/** `{event}.rest`: the rest of the path under the key the event named; otherwise a path or a header. */
function keyValue(where: string, named: string, payload: Record<string, unknown>, headers: HeaderLookup): unknown {
  if (!where.startsWith('{event}')) return eventValue(where, payload, headers);
  // The name as one key: event names hold dots of their own.
  const under = payload[named];
  const rest = where.slice('{event}'.length).replace(/^\./, '');
  return rest === '' ? under : at(under, rest);
}

function eventParams(
  spec: NonNullable<DefinedWebhooks['events']['params']>,
  named: string,
  payload: Record<string, unknown>,
  headers: HeaderLookup,
): Record<string, unknown> {
  const params: Record<string, unknown> = {};
  for (const [name, source] of Object.entries(spec)) {
    const value = keyValue(typeof source === 'string' ? source : source.at, named, payload, headers);
    if (value === undefined || value === null) continue;
    if (typeof source === 'string') params[name] = value;
    else {
      const found = new RegExp(source.match).exec(String(value))?.[1];
      if (found !== undefined) params[name] = found;
    }
  }
  return params;
}

/** An ISO 8601 instant; one without an offset is read as UTC (as Orb and Zendesk send them). */
function isoMs(timestamp: string): number {
  return Date.parse(/(Z|[+-]\d{2}:?\d{2})$/i.test(timestamp) ? timestamp : `${timestamp}Z`);
}

/** A value of the event: `header:<name>` for a header, else a dotted path in the body. */
function eventValue(where: string, payload: Record<string, unknown>, headers: HeaderLookup): unknown {
  return where.startsWith('header:') ? headers(where.slice('header:'.length)) : at(payload, where);
}

/** The signed string's parts: the template with `{timestamp}`, `{id}` filled and the raw body bytes for `{body}`. */
function signed(template: string, values: { timestamp: string; id: string }, body: Buffer): (string | Buffer)[] {
  return template
    .split(/(\{body\})/)
    .map((part) =>
      part === '{body}' ? body : part.replaceAll('{timestamp}', values.timestamp).replaceAll('{id}', values.id),
    );
}
