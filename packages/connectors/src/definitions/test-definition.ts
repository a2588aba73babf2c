import { connectWith } from '../core/connect.ts';
import type { ConnectorDefinition, UpstreamRecord } from '../core/define-connector.ts';
import { isConnectorError } from '../core/errors.ts';
import type { FieldSpec } from '../core/field-spec.ts';
import { at } from '../core/paging.ts';

/** One upstream request a test made, its secrets taken out of the URL. */
export interface TestedRequest {
  readonly method: string;
  readonly url: string;
  readonly status: number | null;
  readonly ms: number;
}

export interface EntityTestResult {
  readonly entity: string;
  /** The first records read (at most 20). */
  readonly records: readonly UpstreamRecord[];
  readonly record_count: number;
  readonly pages: number;
  /** What looks wrong: an error of the read, or records that do not match the declaration. */
  readonly problems: readonly string[];
}

export interface DefinitionTestResult {
  readonly entities: readonly EntityTestResult[];
  readonly requests: readonly TestedRequest[];
}

const SHOWN_RECORDS = 20;

/**
 * Reads the upstream with a definition, writing nothing (POST /api/v1/connector-definitions/{name}/test): each
 * replicated entity as a sync would read it (from `since`, at most `maxPages` pages), each other listed entity once,
 * every request recorded. Problems found are reported, not thrown: a records path that is not a list, a key missing
 * or repeated, fields of the wrong type or not declared, a cursor that does not move.
 */
export async function testDefinition(input: {
  readonly definition: ConnectorDefinition;
  readonly credentials: unknown;
  readonly config: unknown;
  /** The fetch every call goes through (the egress guard); the requests it makes are recorded. */
  readonly fetch: typeof fetch;
  readonly entities?: readonly string[] | undefined;
  readonly maxPages: number;
  readonly since: string;
  readonly signal?: AbortSignal | undefined;
}): Promise<DefinitionTestResult> {
  const requests: TestedRequest[] = [];
  const secrets: string[] = [];
  const recording = (async (url: string | URL | Request, init?: RequestInit) => {
    const started = performance.now();
    const method = init?.method ?? 'GET';
    const shown = redact(url instanceof Request ? url.url : url.toString(), secrets);
    try {
      const response = await input.fetch(url, init);
      requests.push({ method, url: shown, status: response.status, ms: Math.round(performance.now() - started) });
      return response;
    } catch (error) {
      requests.push({ method, url: shown, status: null, ms: Math.round(performance.now() - started) });
      throw error;
    }
  }) as typeof fetch;
  const { catalog } = input.definition;
  for (const value of Object.values((input.credentials ?? {}) as Record<string, unknown>)) {
    if (typeof value === 'string' && value.length >= 4) secrets.push(value);
  }
  const connector = connectWith(input.definition, input.credentials, input.config, {
    fetch: recording,
    retry: { maxAttempts: 1, baseDelayMs: 1, maxDelayMs: 1, maxWaitMs: 1 },
  });
  const names = input.entities ?? Object.keys(catalog.entities);
  const results: EntityTestResult[] = [];
  for (const name of names) {
    const entity = Object.hasOwn(catalog.entities, name) ? catalog.entities[name] : undefined;
    if (!entity) {
      results.push({
        entity: name,
        records: [],
        record_count: 0,
        pages: 0,
        problems: ['not an entity of the definition'],
      });
      continue;
    }
    const records: UpstreamRecord[] = [];
    const problems: string[] = [];
    let pages = 0;
    try {
      if (entity.sync && !entity.sync.parent) {
        for await (const page of connector.read(name, { since: input.since }, input.signal)) {
          pages++;
          records.push(...page.records);
          if (pages >= input.maxPages) break;
        }
      } else if (entity.actions.list && !entity.sync?.parent) {
        const result = await connector.execute({ entity: name, action: 'list', params: {}, signal: input.signal });
        pages = 1;
        if (result.type === 'json' && Array.isArray(result.body.data))
          records.push(...(result.body.data as UpstreamRecord[]));
      } else {
        problems.push('not read: it has no list of its own (a child entity is read through its parent)');
      }
    } catch (error) {
      problems.push(isConnectorError(error) ? error.message : 'the read failed');
    }
    problems.push(...recordProblems(records, entity.recordKey, entity.record));
    results.push({
      entity: name,
      records: records.slice(0, SHOWN_RECORDS),
      record_count: records.length,
      pages,
      problems,
    });
  }
  return { entities: results, requests };
}

/** Keys missing or repeated, and fields whose values do not have the declared type (each problem said once). */
function recordProblems(
  records: readonly UpstreamRecord[],
  key: string,
  fields: Readonly<Record<string, FieldSpec>>,
): string[] {
  const problems = new Set<string>();
  const seen = new Set<string>();
  for (const [i, record] of records.entries()) {
    const value = at(record, key);
    if (value === undefined || value === null) problems.add(`record ${i} has no key at '${key}'`);
    else if (seen.has(String(value))) problems.add(`key ${String(value)} is repeated`);
    else seen.add(String(value));
    for (const [name, spec] of Object.entries(fields)) {
      const field = Object.hasOwn(record, name) ? record[name] : at(record, name);
      if (field === undefined || field === null) {
        if (!spec.nullable) problems.add(`'${name}' is declared never null but is missing or null`);
        continue;
      }
      if (!matches(spec, field)) problems.add(`'${name}' is declared ${spec.type} but holds ${describe(field)}`);
    }
    for (const name of Object.keys(record)) {
      if (!Object.hasOwn(fields, name)) problems.add(`'${name}' is in the records but not declared`);
    }
  }
  return [...problems].slice(0, 50);
}

function matches(spec: FieldSpec, value: unknown): boolean {
  switch (spec.type) {
    case 'string':
      return typeof value === 'string' && (!spec.enum || spec.enum.includes(value));
    case 'datetime':
      return typeof value === 'string' && !Number.isNaN(Date.parse(value));
    case 'integer':
      return Number.isInteger(value);
    case 'number':
      return typeof value === 'number';
    case 'decimal':
      return (typeof value === 'string' && /^-?\d+(\.\d+)?$/.test(value)) || typeof value === 'number';
    case 'boolean':
      return typeof value === 'boolean';
    case 'object':
      return typeof value === 'object' && !Array.isArray(value);
    case 'array':
      return Array.isArray(value);
  }
}

function describe(value: unknown): string {
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return `the string ${JSON.stringify(value.slice(0, 40))}`;
  return `${typeof value} ${JSON.stringify(value)?.slice(0, 40)}`;
}

/** A URL with every query value that is a secret (or holds one) replaced. */
function redact(raw: string, secrets: readonly string[]): string {
  let url = raw;
  for (const secret of secrets) {
    url = url.replaceAll(secret, '[REDACTED]').replaceAll(encodeURIComponent(secret), '[REDACTED]');
  }
  return url;
}
