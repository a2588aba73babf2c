import { createHmac, timingSafeEqual } from 'node:crypto';
import { SIGNATURE_TOLERANCE_MS, type Verification } from './types.ts';

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

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A non-empty string or number id as a string; undefined otherwise. */
export function idOf(value: unknown): string | undefined {
  if (typeof value === 'string' && value.length > 0 && value.length <= 256) return value;
  if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value);
  return undefined;
}
