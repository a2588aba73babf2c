import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { connectWith } from '../core/connect.ts';
import { compileDefinition } from './compile-definition.ts';
import { definitionJsonSchema } from './definition-format.ts';
import { checkDefinition } from './definition-problems.ts';

/** The JSON examples of docs/definitions.md, in order: the definition, the webhooks, the problem, the connector. */
const DOC_EXAMPLES = [
  ...readFileSync(new URL('../../../../docs/definitions.md', import.meta.url), 'utf8').matchAll(
    /```json\n([\s\S]*?)```/g,
  ),
].map((m) => JSON.parse(m[1]!) as Record<string, unknown>);
const acme = DOC_EXAMPLES[0] as {
  entities: { tickets: { list: { paging: Record<string, unknown> }; replication: { cursor_field: string } } };
} & Record<string, unknown>;

describe('connector definitions', () => {
  it('accepts the documented example and compiles it into a catalog the core runs', () => {
    const check = checkDefinition(acme, ['Orb']);
    expect(check).toMatchObject({ ok: true });
    if (!check.ok) return;
    const compiled = compileDefinition(check.definition);
    const tickets = compiled.catalog.entities.tickets!;
    expect(tickets.recordKey).toBe('id');
    expect(tickets.searchable?.requester).toEqual({
      type: 'object',
      nullable: true,
      fields: { email: { type: 'string', nullable: true } },
    });
    expect(tickets.sync).toEqual({ mode: 'incremental', cursorField: 'updated_at' });
    expect(tickets.changeCapture).toMatchObject({ seesEdits: true, seesDeletions: false });
    expect(compiled.catalog.rateLimit.perSecond).toBe(5);
    // Unknown params are refused, as for built-in kinds; path placeholders are required params.
    expect(tickets.actions.list!.safeParse({ status: 'open', cursor: 'abc' }).success).toBe(true);
    expect(tickets.actions.list!.safeParse({ stauts: 'open' }).success).toBe(false);
    expect(tickets.actions.get!.safeParse({}).success).toBe(false);
    expect(tickets.actions.get!.safeParse({ id: '12' }).success).toBe(true);
  });

  it('lists every problem at once with its JSON pointer and a did-you-mean', () => {
    const bad = structuredClone(acme) as Record<string, unknown> & typeof acme;
    (bad.entities.tickets.list.paging as Record<string, unknown>).type = 'cursr';
    (bad.entities.tickets as Record<string, unknown>).serchable = 'all';
    bad.entities.tickets.replication.cursor_field = 'updated';
    const check = checkDefinition(bad);
    expect(check.ok).toBe(false);
    if (check.ok) return;
    expect(check.problems).toEqual(
      expect.arrayContaining([
        { path: '/entities/tickets/list/paging/type', message: expect.stringContaining("Did you mean 'cursor'") },
        { path: '/entities/tickets/serchable', message: expect.stringContaining("Did you mean 'searchable'") },
      ]),
    );
    // The cross checks run once the shape holds.
    const cross = structuredClone(acme);
    cross.entities.tickets.replication.cursor_field = 'updated';
    const second = checkDefinition(cross, ['Acme-Helpdesk']);
    expect(second.ok).toBe(false);
    if (second.ok) return;
    expect(second.problems).toEqual(
      expect.arrayContaining([
        { path: '/name', message: expect.stringContaining('built-in') },
        {
          path: '/entities/tickets/replication/cursor_field',
          message: expect.stringContaining("Did you mean 'updated_at'"),
        },
      ]),
    );
  });

  it('accepts the webhooks example of docs/definitions.md as part of the definition', () => {
    expect(checkDefinition({ ...acme, webhooks: DOC_EXAMPLES[1] })).toMatchObject({ ok: true });
  });

  it('answers the problems docs/definitions.md shows for its broken example', () => {
    const broken = structuredClone(acme);
    broken.entities.tickets.list.paging.type = 'cursr';
    const first = checkDefinition(broken);
    const shown = (DOC_EXAMPLES[2] as { errors: { path: string; message: string }[] }).errors;
    expect(first.ok ? [] : first.problems).toEqual([shown[0]]);
    const second = structuredClone(acme);
    second.entities.tickets.replication.cursor_field = 'updated';
    const check = checkDefinition(second);
    expect(check.ok ? [] : check.problems).toEqual([shown[1]]);
  });

  it('refuses a base_url variable that config does not declare', () => {
    const check = checkDefinition({ ...acme, base_url: 'https://{tenant}.acme.example' });
    expect(check).toMatchObject({
      ok: false,
      problems: [{ path: '/base_url', message: expect.stringContaining('{tenant}') }],
    });
  });

  it('publishes the format as JSON Schema 2020-12', () => {
    const schema = definitionJsonSchema();
    expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(Object.keys(schema.properties as object)).toEqual(
      expect.arrayContaining(['name', 'base_url', 'auth', 'entities']),
    );
  });

  it('sends an API key where the definition says and pages by the declared cursor', async () => {
    const check = checkDefinition({ ...acme, auth: { type: 'api_key', in: 'query', name: 'key' } });
    if (!check.ok) throw new Error(JSON.stringify(check.problems));
    const seen: string[] = [];
    const fetch = (async (url: URL) => {
      seen.push(url.toString());
      const first = !url.searchParams.has('cursor');
      return Response.json({ data: [{ id: first ? 1 : 2 }], meta: { next_cursor: first ? 'c2' : null } });
    }) as unknown as typeof globalThis.fetch;
    const connector = connectWith(
      compileDefinition(check.definition),
      { api_key: 'k-1' },
      { subdomain: 'acme' },
      { fetch },
    );
    const pages = [];
    for await (const page of connector.read('tickets', { since: '2024-01-01T00:00:00Z' })) pages.push(page.records);
    expect(pages).toEqual([[{ id: 1 }], [{ id: 2 }]]);
    expect(seen[0]).toBe(
      'https://acme.acme.example/api/v2/tickets?page_size=100&updated_since=2024-01-01T00%3A00%3A00.000Z&key=k-1',
    );
    expect(seen[1]).toContain('cursor=c2');
  });
});
