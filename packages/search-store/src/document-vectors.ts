import type { EntityCatalog } from '@conduit/connectors';
import { VECTOR_FIELDS } from '@conduit/search-dsl';
import type { Client } from '@opensearch-project/opensearch';
import { embeddedText, textHash } from './embedded-text.ts';
import type { VersionedDocument } from './versioned-documents.ts';

/** A record's embedded text the copy holds without its vector yet. */
export interface UnembeddedText {
  /** The document's id in the entity's index. */
  readonly id: string;
  readonly hash: string;
  readonly text: string;
}

/** Which connector's documents of which entity. */
export interface VectorTarget {
  readonly connectorType: string;
  readonly entity: string;
  readonly connectorId: string;
}

/** A vector computed for a document's text, set only while the document still holds that text. */
export interface VectorUpdate {
  readonly id: string;
  readonly hash: string;
  readonly vector: ArrayLike<number>;
}

/**
 * Where the copy's vectors come from (search by meaning, docs/search.md): vectors already computed, by text hash,
 * and the texts still to embed, told after the write that left them without one. The worker's embedding job
 * implements `unembedded` off the sync's path; CopyWriter calls both around each write, and IndexLifecycle
 * queues what a new mapping version copied without its vector.
 */
export interface VectorSource {
  known(target: VectorTarget, hashes: readonly string[]): Promise<ReadonlyMap<string, ArrayLike<number>>>;
  unembedded(target: VectorTarget, texts: readonly UnembeddedText[]): Promise<void>;
}

/**
 * Puts each document's text hash, and its vector when one is known for that text, into the documents about to be
 * written (a rewrite of an unchanged record keeps its vector without embedding again); returns the others.
 */
export async function attachKnownVectors(
  source: VectorSource,
  target: VectorTarget,
  entity: EntityCatalog,
  documents: readonly VersionedDocument[],
): Promise<UnembeddedText[]> {
  const texts: { document: VersionedDocument; hash: string; text: string }[] = [];
  for (const document of documents) {
    if (document.write.kind !== 'upsert') continue;
    const text = embeddedText(entity, document.write.record);
    if (text !== null) texts.push({ document, hash: textHash(text), text });
  }
  if (texts.length === 0) return [];
  const known = await source.known(target, [...new Set(texts.map((t) => t.hash))]);
  const missing: UnembeddedText[] = [];
  for (const { document, hash, text } of texts) {
    const doc = document.doc as Record<string, unknown>;
    doc[VECTOR_FIELDS.textHash] = hash;
    const vector = known.get(hash);
    if (vector) doc[VECTOR_FIELDS.vector] = Array.from(vector);
    else missing.push({ id: document.id, hash, text });
  }
  return missing;
}

/**
 * Sets vectors on documents whose text is still the one embedded: a painless update that does nothing (`noop`)
 * when the document has since been rewritten with another text or removed, so a late vector never lands on the wrong
 * text. Returns how many documents took their vector.
 * https://opensearch.org/docs/2.19/api-reference/document-apis/update-document/
 */
export async function setVectors(
  client: Client,
  index: string,
  connectorId: string,
  updates: readonly VectorUpdate[],
): Promise<number> {
  if (updates.length === 0) return 0;
  const body: Record<string, unknown>[] = [];
  for (const update of updates) {
    body.push({ update: { _index: index, _id: update.id, routing: connectorId, retry_on_conflict: 3 } });
    body.push({
      script: {
        source: SET_VECTOR,
        lang: 'painless',
        params: { hash: update.hash, vector: Array.from(update.vector) },
      },
    });
  }
  const answer = (await client.bulk({ body, refresh: false })).body as {
    items: { update?: { status: number; result?: string; error?: unknown } }[];
  };
  let set = 0;
  for (const item of answer.items) {
    const status = item.update?.status ?? 500;
    // 404: the record was never written or has been purged since; nothing to do.
    if (status >= 300 && status !== 404)
      throw new Error(`setting vectors failed: ${JSON.stringify(item.update?.error)}`);
    if (item.update?.result === 'updated') set++;
  }
  return set;
}

const SET_VECTOR = `if (ctx._source['${VECTOR_FIELDS.textHash}'] == params.hash && ctx._source['_deleted'] != true) {
  ctx._source['${VECTOR_FIELDS.vector}'] = params.vector;
} else { ctx.op = 'noop'; }`;

/**
 * A document copied to a new mapping version (IndexLifecycle's alias swap): its text hash, and its vector when the old
 * document held one computed from that same text; otherwise the text to embed once the alias has moved (the records
 * copied before search by meaning existed, or before the entity embedded this field).
 */
export function vectorOnCopy(
  entity: EntityCatalog,
  record: Record<string, unknown>,
  stored: { readonly vector?: unknown; readonly hash?: unknown },
): { fields: Record<string, unknown>; missing?: { hash: string; text: string } } {
  if (!entity.embed?.length) return { fields: {} };
  const text = embeddedText(entity, record);
  if (text === null) return { fields: {} };
  const hash = textHash(text);
  if (stored.hash === hash && Array.isArray(stored.vector)) {
    return { fields: { [VECTOR_FIELDS.textHash]: hash, [VECTOR_FIELDS.vector]: stored.vector } };
  }
  return { fields: { [VECTOR_FIELDS.textHash]: hash }, missing: { hash, text } };
}
