/** Answers remembered per client: a dashboard's panels, not every question ever asked. */
const MAX_ANSWERS = 100;
/** A larger answer is not remembered (its memory would outweigh the transfer a 304 saves). */
const MAX_ANSWER_CHARS = 1_000_000;

/**
 * The last answer to each search or SQL question with its ETag (docs/api.md, "Answers from memory"): asked again,
 * the question carries `If-None-Match`, and a 304 reuses the answer remembered here instead of a body.
 */
export class AnswerMemory {
  readonly #answers = new Map<string, { readonly etag: string; readonly text: string }>();

  /** The ETag of the answer remembered for `question`. */
  etagOf(question: string): string | undefined {
    return this.#answers.get(question)?.etag;
  }

  /** The answer remembered for `question` (a fresh copy each time: callers may change what they get). */
  recall(question: string): unknown {
    const kept = this.#answers.get(question);
    if (!kept) return undefined;
    // Most recently used last: the first in the map is the next to go.
    this.#answers.delete(question);
    this.#answers.set(question, kept);
    return JSON.parse(kept.text);
  }

  remember(question: string, etag: string | null, text: string): void {
    this.#answers.delete(question);
    if (etag === null || text.length > MAX_ANSWER_CHARS) return;
    this.#answers.set(question, { etag, text });
    if (this.#answers.size > MAX_ANSWERS) this.#answers.delete(this.#answers.keys().next().value!);
  }
}
