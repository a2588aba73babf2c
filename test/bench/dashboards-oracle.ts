import { factsOf, type InvoiceFacts, PANELS, type PanelAnswer, WINDOW_FROM_MS } from './dashboards-panels.ts';

/** An answer a viewer was served (a 304 serves the body it held), sent for checking. */
export interface ServedAnswer {
  readonly side: string;
  readonly panel: number;
  readonly sentAt: number;
  readonly receivedAt: number;
  readonly status: number;
  readonly asOf: string | undefined;
  readonly body: PanelAnswer;
}

export interface Verdict {
  /** The answer equals no state the window was in: a wrong answer, whatever its age. */
  readonly wrong: boolean;
  /** How long before the request the first change the answer misses was applied to the copy (0: it misses none). */
  readonly lagMs: number;
  /** With `meta.as_of`: whether the answer reflects every change up to that cursor (docs/search.md). */
  readonly asOfHolds: boolean | undefined;
}

/**
 * The truth of every panel after each change the copy applied inside the window, from the records themselves: the
 * loaded invoices, then each change-feed event in order. An answer is checked against these states: the newest
 * state it equals says which changes it reflects, hence how far it lags the copy.
 */
export class DashboardOracle {
  readonly #current: Map<string, InvoiceFacts>;
  /** Feed number and apply instant of each change inside the window, in feed order. */
  readonly #changes: { seq: number; at: number; facts: InvoiceFacts }[] = [];
  /** Canonical answer of each panel before any change (index 0) and after each change inside the window. */
  #states: string[][] | undefined;

  constructor(window: Iterable<InvoiceFacts>) {
    this.#current = new Map([...window].map((facts) => [facts.id, facts]));
  }

  /** The panels' truth before any change. */
  initial(): string[] {
    return PANELS.map((panel) => panel.oracle([...this.#current.values()]));
  }

  /** A change-feed event of the connector, in feed order (events before the window change no panel). */
  apply(event: { seq: number; record: Record<string, unknown> | null; changed_at: Date }): void {
    if (event.record === null) throw new Error(`event ${event.seq} removed a record: the benchmark removes none`);
    const facts = factsOf(event.record);
    if (facts.invoiceDateMs < WINDOW_FROM_MS) return;
    this.#changes.push({ seq: event.seq, at: event.changed_at.getTime(), facts });
    this.#states = undefined;
  }

  get changesInside(): number {
    return this.#changes.length;
  }

  check(answer: ServedAnswer): Verdict & { readonly canonical: string } {
    const states = this.#allStates();
    const canonical = PANELS[answer.panel]!.canonical(answer.body);
    let newest = -1;
    for (let j = states.length - 1; j >= 0; j--) {
      if (states[j]![answer.panel] === canonical) {
        newest = j;
        break;
      }
    }
    if (newest < 0) return { wrong: true, lagMs: 0, asOfHolds: undefined, canonical };
    const asOfHolds = this.#asOfHolds(answer, newest);
    let lagMs = 0;
    for (let j = newest + 1; j < states.length; j++) {
      if (states[j]![answer.panel] !== canonical) {
        lagMs = Math.max(0, answer.sentAt - this.#changes[j - 1]!.at);
        break;
      }
    }
    return { wrong: false, lagMs, asOfHolds, canonical };
  }

  /** The panel's truth closest before `sentAt` (for the report of a wrong answer). */
  truthAt(panel: number, sentAt: number): string {
    const states = this.#allStates();
    const before = this.#changes.filter((c) => c.at <= sentAt).length;
    return states[before]![panel]!;
  }

  /**
   * `meta.as_of` holds when the answer reflects every change up to it (it may reflect later ones too: applied again
   * after it, they leave the copy as it is): the newest state the answer equals comes at or after that cursor.
   */
  #asOfHolds(answer: ServedAnswer, newest: number): boolean | undefined {
    if (answer.asOf === undefined || !/^\d+$/.test(answer.asOf)) return undefined;
    const asOf = Number(answer.asOf);
    return newest >= this.#changes.filter((c) => c.seq <= asOf).length;
  }

  /** Computed once every event is in: each state is the panels over the whole window. */
  #allStates(): string[][] {
    if (this.#states) return this.#states;
    const window = new Map(this.#current);
    const statesOf = (records: InvoiceFacts[]) => PANELS.map((panel) => panel.oracle(records));
    const states = [statesOf([...window.values()])];
    for (const change of this.#changes) {
      window.set(change.facts.id, change.facts);
      states.push(statesOf([...window.values()]));
    }
    this.#states = states;
    return states;
  }
}
