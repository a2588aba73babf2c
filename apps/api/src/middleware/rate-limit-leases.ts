/** What the shared counter answered: points taken, or a refusal with the wait until one would fit. */
export type Consumed =
  | { readonly admitted: true; readonly remaining: number }
  | { readonly admitted: false; readonly retryAfterMs: number };

/** Takes `points` of `clientId`'s budget from the counter every instance shares (Redis), all or none. */
export type ConsumeShared = (clientId: string, points: number) => Promise<Consumed>;

export type Admission =
  | { readonly admitted: true; readonly remaining: number }
  | { readonly admitted: false; readonly remaining: 0; readonly retryAfterMs: number };

export interface LeaseOptions {
  readonly consume: ConsumeShared;
  readonly now?: () => number;
  /** How long taken points may be spent here (ms). */
  readonly leaseMs?: number;
  /** The most points one lease takes. */
  readonly maxPoints?: number;
  /** A lease takes at most 1/share of what the client had left at the last answer. */
  readonly share?: number;
  /** Clients remembered at once; past it, everything is forgotten (only saves shared round trips). */
  readonly capacity?: number;
}

interface ClientState {
  /** Points taken from the shared counter and not yet spent here. */
  points: number;
  /** Points spent from the current lease. */
  used: number;
  expiresAtMs: number;
  /** What the shared counter said was left after the current lease was taken. */
  remaining: number;
  /** How many points the next lease asks for. */
  nextSize: number;
  /** The lease being taken, which concurrent requests wait for instead of each asking the counter. */
  pending: Promise<unknown> | undefined;
}

/**
 * Leases of each client's shared rate-limit budget, so most requests do not wait on Redis. A lease takes several
 * points from the shared counter in one call and spends them here for up to a second. Points are taken before
 * they are spent, so across all instances no more than the limit is ever admitted. Leases are sized by use: a
 * lease spent before it expires doubles the next, one that expires half spent sizes the next by what was spent, so
 * a client calling this instance r times a second holds about r points here. No lease takes more than 1/share of
 * what the client had left, and a refusal drops the client to one point per call: near the limit every request
 * asks the counter itself, exactly as without leases. The cost of leasing: unspent points of an expired lease
 * stay counted until the window moves past them, so a client spread over n instances can be refused while up to
 * n leases sit unspent (each at most 1/share of what was left).
 */
export class RateLimitLeases {
  readonly #consume: ConsumeShared;
  readonly #now: () => number;
  readonly #leaseMs: number;
  readonly #maxPoints: number;
  readonly #share: number;
  readonly #capacity: number;
  readonly #clients = new Map<string, ClientState>();

  constructor(options: LeaseOptions) {
    this.#consume = options.consume;
    this.#now = options.now ?? Date.now;
    this.#leaseMs = options.leaseMs ?? 1000;
    this.#maxPoints = options.maxPoints ?? 64;
    this.#share = options.share ?? 32;
    this.#capacity = options.capacity ?? 10_000;
  }

  /** One point of `clientId`'s budget: from a live lease here, else from a new lease of the shared counter. */
  async admit(clientId: string): Promise<Admission> {
    for (;;) {
      const state = this.#stateOf(clientId);
      if (state.points > 0 && this.#now() < state.expiresAtMs) {
        state.points--;
        state.used++;
        return { admitted: true, remaining: state.remaining + state.points };
      }
      if (state.pending) {
        // Another request is taking a lease: spend from it, or (refused, failed, already spent) ask again.
        await state.pending.catch(() => undefined);
        continue;
      }
      const taking = this.#take(state, clientId);
      state.pending = taking;
      try {
        return await taking;
      } finally {
        state.pending = undefined;
      }
    }
  }

  async #take(state: ClientState, clientId: string): Promise<Admission> {
    this.#resize(state);
    const size = Math.max(1, Math.min(state.nextSize, Math.floor(state.remaining / this.#share)));
    let taken = size;
    let answer = await this.#consume(clientId, size);
    if (!answer.admitted && size > 1) {
      // The lease did not fit, one point may: near the limit every request asks for its own.
      taken = 1;
      answer = await this.#consume(clientId, 1);
    }
    if (!answer.admitted) {
      state.nextSize = 1;
      state.remaining = 0;
      return { admitted: false, remaining: 0, retryAfterMs: answer.retryAfterMs };
    }
    state.points = taken - 1;
    state.used = 1;
    state.remaining = answer.remaining;
    state.expiresAtMs = this.#now() + this.#leaseMs;
    return { admitted: true, remaining: answer.remaining + state.points };
  }

  /** The next lease's size, from how the last one went: spent in time doubles it, expired sizes it by its use. */
  #resize(state: ClientState): void {
    if (state.used === 0) return;
    state.nextSize = state.points === 0 ? Math.min(this.#maxPoints, state.nextSize * 2) : Math.max(1, state.used);
    state.points = 0;
    state.used = 0;
  }

  #stateOf(clientId: string): ClientState {
    let state = this.#clients.get(clientId);
    if (!state) {
      if (this.#clients.size >= this.#capacity) this.#forgetIdle();
      // Nothing known about what is left: the first lease is a single point, which learns it.
      state = { points: 0, used: 0, expiresAtMs: 0, remaining: 0, nextSize: 1, pending: undefined };
      this.#clients.set(clientId, state);
    }
    return state;
  }

  /** Forgets clients with no lease being taken (their unspent points were counted already; nothing is lost). */
  #forgetIdle(): void {
    for (const [clientId, state] of this.#clients) if (!state.pending) this.#clients.delete(clientId);
  }
}
