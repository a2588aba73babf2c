import { createHash, randomUUID } from 'node:crypto';
import { intervalMs, type PlatformEnv } from '@conduit/config';
import { isRetryable } from '@conduit/connectors';
import type { IdempotencyKeysRepository, IdempotencyRef } from '@conduit/db';
import type { Logger } from '@conduit/observability';
import canonicalize from 'canonicalize';
import { ApiError, toProblem } from '../problem.ts';

/** How long an Idempotency-Key of an execute write is remembered, its answer replayed (docs/trusted-calls.md). */
const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

export const IDEMPOTENCY_HEADER = 'idempotency-key';
export const REPLAYED_HEADER = 'idempotent-replayed';

/** Actions that only read: a key on them has nothing to protect and is ignored. */
const READ_ACTIONS = new Set(['list', 'get', 'search', 'download']);

export function isWriteAction(action: string): boolean {
  return !READ_ACTIONS.has(action);
}

/** A JSON answer as it is sent, and as it is kept for replays. */
export interface KeptAnswer {
  readonly status: number;
  readonly body: string;
  readonly replayed: boolean;
}

export interface IdempotentCall {
  readonly organizationId: string;
  readonly connectorId: string;
  readonly key: string;
  readonly request: { readonly entity: string; readonly action: string; readonly params: Record<string, unknown> };
  /** The params to send, with any vendor-side id added (asked once per key; undefined: the kind has none). */
  prepare(): Promise<Record<string, unknown> | undefined>;
  /** Runs the write with these params and returns its JSON answer body (errors are thrown). */
  run(params: Record<string, unknown>): Promise<unknown>;
}

/** The Idempotency-Key header's value, checked: 1-255 visible ASCII characters. */
export function idempotencyKeyOf(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  if (!/^[\x21-\x7e]{1,255}$/.test(header)) {
    throw new ApiError(400, 'invalid_request', 'invalid Idempotency-Key', {
      errors: [{ path: '/headers/Idempotency-Key', message: 'must be 1-255 visible ASCII characters' }],
    });
  }
  return header;
}

/**
 * Idempotency-Key on writing execute calls (docs/trusted-calls.md): the first call with a key runs the write and
 * keeps its answer, durably, before it is sent; the same key with the same request replays that answer; with
 * another request it is 422 `idempotency_key_reused`; while the first runs, 409 `idempotency_in_progress` with
 * Retry-After. A failure worth retrying (a 5xx, a rate limit) frees the key, so the caller's retry runs again. The
 * params a kind prepares (Drive's pre-generated file id) are kept before the upstream call: should this process
 * die between the call and keeping the answer, the call that takes the key over sends the same id, and the vendor
 * makes one record.
 */
export class IdempotentExecutor {
  readonly #keys: IdempotencyKeysRepository;
  readonly #ttlMs: number;
  readonly #leaseMs: number;
  readonly #logger: Logger;

  constructor(keys: IdempotencyKeysRepository, env: Pick<PlatformEnv, 'IDEMPOTENCY_LEASE'>, logger: Logger) {
    this.#keys = keys;
    this.#ttlMs = IDEMPOTENCY_TTL_MS;
    this.#leaseMs = intervalMs(env.IDEMPOTENCY_LEASE);
    this.#logger = logger;
  }

  async execute(call: IdempotentCall): Promise<KeptAnswer> {
    const ref: IdempotencyRef = {
      organizationId: call.organizationId,
      connectorId: call.connectorId,
      key: call.key,
      owner: randomUUID(),
    };
    const claim = await this.#keys.claim({
      ...ref,
      fingerprint: fingerprintOf(call.request),
      ttlMs: this.#ttlMs,
      leaseMs: this.#leaseMs,
    });
    switch (claim.type) {
      case 'completed':
        return { status: claim.status, body: claim.body, replayed: true };
      case 'mismatch':
        throw new ApiError(
          422,
          'idempotency_key_reused',
          'this Idempotency-Key was used with a different request (entity, action or params) within the last 24 h',
        );
      case 'in_progress':
        throw new ApiError(
          409,
          'idempotency_in_progress',
          'a request with this Idempotency-Key is still running; retry after Retry-After seconds',
          { retryAfterSeconds: claim.retryAfterSeconds },
        );
      case 'owner':
        return this.#run(call, ref, claim.sentParams);
    }
  }

  async #run(call: IdempotentCall, ref: IdempotencyRef, previouslySent: unknown): Promise<KeptAnswer> {
    // Renewed while the call runs: a lease that runs out means this process died.
    const renewal = setInterval(
      () => void this.#keys.renew(ref, this.#leaseMs).catch(() => undefined),
      Math.max(100, Math.floor(this.#leaseMs / 3)),
    );
    renewal.unref();
    try {
      let params = isParams(previouslySent) ? previouslySent : undefined;
      if (!params) {
        params = (await call.prepare()) ?? call.request.params;
        if (params !== call.request.params) await this.#keys.recordSentParams(ref, params);
      }
      const body = JSON.stringify(await call.run(params));
      await this.#keep(ref, { status: 200, body });
      return { status: 200, body, replayed: false };
    } catch (error) {
      const { problem } = toProblem(error);
      // The same request would fail the same way (the upstream refused it, the params are wrong): keep the answer.
      // Otherwise (a 5xx, a rate limit, a lost connection) free the key for the caller's retry.
      if (!isRetryable(error) && problem.status < 500 && problem.status !== 429) {
        await this.#keep(ref, { status: problem.status, body: JSON.stringify(problem) });
      } else {
        await this.#keys.release(ref).catch(() => undefined);
      }
      throw error;
    } finally {
      clearInterval(renewal);
    }
  }

  async #keep(ref: IdempotencyRef, answer: { status: number; body: string }): Promise<void> {
    if (!(await this.#keys.complete(ref, answer))) {
      // Only when this call's claim lapsed (it ran longer than the lease without renewing) and another took over.
      this.#logger.warn('idempotency key taken over before its answer was kept', {
        connector_id: ref.connectorId,
      });
    }
  }
}

/** SHA-256 of the request in RFC 8785 canonical JSON: the same request whatever the order of its keys. */
function fingerprintOf(request: IdempotentCall['request']): string {
  return createHash('sha256')
    .update(canonicalize(request) ?? '')
    .digest('base64url');
}

function isParams(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
