import { createHmac, timingSafeEqual } from 'node:crypto';
import { isPlainObject } from './values.ts';
import {
  type HeaderLookup,
  SIGNATURE_TOLERANCE_MS,
  type Verification,
  WebhookPayloadError,
  type WebhookRecordRef,
  type WebhookScheme,
} from './webhook-scheme.ts';

export function hmacSha256(key: string | Buffer, ...parts: (string | Buffer)[]): Buffer {
  const hmac = createHmac('sha256', key);
  for (const part of parts) hmac.update(part);
  return hmac.digest();
}

/** Constant-time comparison of two encoded signatures (different lengths are simply unequal). */
export function sameSignature(expected: string, given: string): boolean {
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}

export const OK: Verification = { ok: true };

export function refused(reason: string): Verification {
  return { ok: false, reason };
}

/** Whether a signing time (ms since epoch) is within the tolerance of now, in either direction. */
export function checkFreshness(signedAtMs: number, nowMs: number): Verification {
  if (!Number.isFinite(signedAtMs)) return refused('unreadable signature timestamp');
  if (Math.abs(nowMs - signedAtMs) > SIGNATURE_TOLERANCE_MS) return refused('stale signature timestamp');
  return OK;
}

/** Unix seconds (as Sentry and Standard Webhooks send them) in ms since epoch; NaN when not a plain number. */
export function unixSecondsMs(timestamp: string): number {
  return /^\d{1,12}$/.test(timestamp) ? Number(timestamp) * 1000 : Number.NaN;
}

/** Where a timestamped scheme sends its signature and signing time, and how it reads the time. */
export interface SignedAtHeaders {
  readonly signature: string;
  readonly timestamp: string;
  /** The refusal when either header is missing. */
  readonly missing: string;
  /** The signing time in ms since epoch (NaN when unreadable). */
  readonly signedAtMs: (timestamp: string) => number;
}

/**
 * The steps every timestamped scheme takes in the same order: both headers present, a fresh signing time, then the
 * scheme's own check of the signature header (its HMAC input and encoding differ by vendor).
 */
export function verifyTimestamped(
  headers: HeaderLookup,
  nowMs: number,
  spec: SignedAtHeaders,
  check: (signature: string, timestamp: string) => Verification,
): Verification {
  const signature = headers(spec.signature);
  const timestamp = headers(spec.timestamp);
  if (!signature || !timestamp) return refused(spec.missing);
  const fresh = checkFreshness(spec.signedAtMs(timestamp), nowMs);
  if (!fresh.ok) return fresh;
  return check(signature, timestamp);
}

/** One signature against the expected one. */
export function matchesSignature(expected: string, given: string): Verification {
  return sameSignature(expected, given) ? OK : refused('signature does not match');
}

/** Space-separated `v1<separator><signature>` entries (several during a secret rotation): one match is enough. */
export function matchesAnyV1(expected: string, entries: string, separator: string): Verification {
  for (const entry of entries.split(' ')) {
    const [version, signature] = entry.split(separator, 2);
    if (version === 'v1' && signature !== undefined && sameSignature(expected, signature)) return OK;
  }
  return refused('no matching v1 signature');
}

/** A non-empty string or number id as a string; undefined otherwise. */
export function idOf(value: unknown): string | undefined {
  if (typeof value === 'string' && value.length > 0 && value.length <= 256) return value;
  if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value);
  return undefined;
}

/**
 * The scheme most vendors share: a signature header and a signing-time header, a fresh signing time, then an
 * HMAC-SHA256 over a prefix built from the time (and other headers) followed by the raw body. Each vendor only
 * says where its headers are, what the prefix is, how the digest is encoded, and how its secret becomes a key.
 */
export interface TimestampedHmac extends SignedAtHeaders {
  /** What the HMAC covers before the raw body; null when a header it needs is missing (refused as `missing`). */
  readonly signedPrefix: (timestamp: string, headers: HeaderLookup) => string | null;
  readonly encoding: 'hex' | 'base64';
  /** Space-separated `v1<separator><signature>` entries (one match is enough); absent: the header is one signature. */
  readonly v1Separator?: string;
  /**
   * The key from the configured secret (default: the secret's UTF-8 bytes, any secret will do); null: not a secret
   * of this scheme, refused when it is configured (`requirement`) and, should one be stored, when a call comes
   * (`refusal`).
   */
  readonly key?: {
    readonly of: (secret: string) => Buffer | null;
    readonly requirement: string;
    readonly refusal: string;
  };
}

/** A whole vendor scheme of this kind: its secret check follows from `key`; `parse` reads the vendor's events. */
export function timestampedHmacScheme(scheme: TimestampedHmac, parse: WebhookScheme['parse']): WebhookScheme {
  const { key } = scheme;
  return {
    checkSecret: (secret) => (key === undefined || key.of(secret) !== null ? null : key.requirement),
    verify: timestampedHmac(scheme),
    parse,
  };
}

function timestampedHmac(scheme: TimestampedHmac): WebhookScheme['verify'] {
  return ({ headers, body }, secret, nowMs) =>
    verifyTimestamped(headers, nowMs, scheme, (signature, timestamp) => {
      const prefix = scheme.signedPrefix(timestamp, headers);
      if (prefix === null) return refused(scheme.missing);
      const key = scheme.key ? scheme.key.of(secret) : secret;
      if (key === null) return refused(scheme.key?.refusal ?? 'unusable secret');
      const expected = hmacSha256(key, prefix, body).toString(scheme.encoding);
      return scheme.v1Separator === undefined
        ? matchesSignature(expected, signature)
        : matchesAnyV1(expected, signature, scheme.v1Separator);
    });
}

/** A verified body as a vendor's event: a JSON object whose `typeField` is a string, or refused as `not <what>`. */
export function eventOf(payload: unknown, typeField: string, what: string): [Record<string, unknown>, string] {
  const type = isPlainObject(payload) ? payload[typeField] : undefined;
  if (!isPlainObject(payload) || typeof type !== 'string') throw new WebhookPayloadError(`not ${what}`);
  return [payload, type];
}

/** The vendor's id of an event (or delivery), without which the body is refused with `missing`. */
export function requiredId(value: unknown, missing: string): string {
  const id = idOf(value);
  if (!id) throw new WebhookPayloadError(missing);
  return id;
}

/** The record an event names, when it names one we replicate (`target`): re-read through `get` with `params`. */
export function getAgain<T extends { readonly entity: string }>(
  target: T | undefined,
  key: string | undefined,
  params: (target: T, key: string) => Record<string, unknown>,
): WebhookRecordRef[] {
  return target && key ? [{ entity: target.entity, key, params: params(target, key), via: 'get' }] : [];
}
