import { createHash } from 'node:crypto';
import { at, type EntityCatalog } from '@conduit/connectors';

/**
 * Characters of a record's text that are embedded: the model reads at most 256 tokens (a few words each), so more
 * would only be cut by the tokenizer after costing the job's payload and the hash.
 */
const MAX_TEXT_CHARS = 4000;

/**
 * The text of a record that carries its meaning: every string under the entity's `embed` fields (an array of answers
 * gives each answer's text and labels), one per line, in the catalog's order. Null when there is none.
 *
 * @example
 *   embeddedText(incidents, { name: 'Checkout down', summary: 'Payments fail' }) // 'Checkout down\nPayments fail'
 */
export function embeddedText(entity: EntityCatalog, record: Record<string, unknown>): string | null {
  const parts: string[] = [];
  for (const path of entity.embed ?? []) collectStrings(path in record ? record[path] : at(record, path), parts, 0);
  const text = parts.join('\n').slice(0, MAX_TEXT_CHARS);
  return text.trim() === '' ? null : text;
}

/** The hash kept beside a vector: the same text never needs its vector computed twice. */
export function textHash(text: string): string {
  return createHash('sha256').update(text).digest('base64url').slice(0, 32);
}

/** Keys inside an embedded object whose strings are identifiers or kinds, not words (a Typeform answer's `field`). */
const NOT_WORDS = /^(id|ref|type|field|href|.*_id|.*url)$/i;

function collectStrings(value: unknown, out: string[], depth: number): void {
  if (depth > 6 || value === null || value === undefined) return;
  if (typeof value === 'string') {
    if (value.trim() !== '') out.push(value);
  } else if (Array.isArray(value)) {
    for (const item of value) collectStrings(item, out, depth + 1);
  } else if (typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      if (!NOT_WORDS.test(key)) collectStrings(item, out, depth + 1);
    }
  }
}
