import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { DESCRIPTION_BUDGET_CHARS } from './budget.ts';
import { kindCatalog } from './catalog.ts';
import { executeToolSchema, searchToolSchema } from './json-schemas.ts';
import { toolDefinitions } from './tools.ts';

const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });

describe('MCP tool input schemas', () => {
  const tools = toolDefinitions();

  it('exist for every kind', () => {
    expect(tools.length).toBeGreaterThan(10);
  });

  // One test a tool: a kind's schemas take seconds to compile, and the worker answers the runner between tests.
  it.each(tools.map((tool) => [tool.name, tool] as const))('compile as JSON Schema 2020-12: %s', (_name, tool) => {
    expect(() => ajv.compile(tool.inputSchema)).not.toThrow();
  });

  it('accept a well-formed Orb invoices search and refuse misspelt fields and inapplicable operators', () => {
    const validate = ajv.compile(searchToolSchema(kindCatalog('Orb')!)!);
    const base = { connector_id: 'c1', entity: 'invoices' };
    const ok = {
      ...base,
      query: {
        filter: {
          and: [{ eq: { status: 'paid' } }, { gte: { created_at: '2024-01-01T00:00:00Z' } }],
          gt: { total: '100.50' },
          like: { 'subscription.plan_id': 'pl_%' },
        },
        sort: [{ created_at: 'desc' }],
      },
      fields: ['id', 'status'],
      limit: 10,
      aggregate: { by_status: { count_by: 'status' }, revenue: { sum: 'total' } },
    };
    expect(validate(ok), JSON.stringify(validate.errors)).toBe(true);
    expect(validate({ ...base, query: { filter: { eq: { stauts: 'paid' } } } })).toBe(false);
    expect(validate({ ...base, query: { filter: { eq: { status: 'unpaid' } } } })).toBe(false);
    expect(validate({ ...base, query: { filter: { fuzzy: { created_at: 'monday' } } } })).toBe(false);
    expect(validate({ ...base, query: { sort: [{ subscription: 'asc' }] } })).toBe(false);
    expect(validate({ ...base, query: {}, aggregate: { a: { sum: 'status' } } })).toBe(false);
    expect(validate({ ...base, query: {}, aggregate: { a: { sum: 'created_at' } } })).toBe(false);
    expect(validate({ ...base, query: {}, aggregate: { a: { histogram: 'total' } } })).toBe(false);
    expect(validate({ ...base, query: {}, aggregate: { a: { histogram: 'created_at' } } })).toBe(false);
    expect(validate({ ...base, query: {}, aggregate: { a: { histogram: 'created_at', interval: 'year' } } })).toBe(
      false,
    );
    expect(validate({ ...base, entity: 'customers', query: { filter: { eq: { status: 'paid' } } } })).toBe(false);
  });

  it('gives each live action its own params schema', () => {
    const validate = ajv.compile(executeToolSchema(kindCatalog('Orb')!));
    const list = { connector_id: 'c1', entity: 'invoices', action: 'list' };
    expect(validate({ ...list, params: { status: 'paid', limit: 5 } })).toBe(true);
    expect(validate({ ...list, params: { status: 'overdue' } })).toBe(false);
    expect(validate({ ...list, params: { limt: 5 } })).toBe(false);
    expect(validate({ connector_id: 'c1', entity: 'customers', action: 'delete', params: {} })).toBe(false);
    expect(validate({ connector_id: 'c1', entity: 'invoices', action: 'get' })).toBe(false);
  });
});

describe('the sql tool', () => {
  it("lists the kind's tables and their columns within the description budget", () => {
    const sqlTools = toolDefinitions().filter((t) => t.name.endsWith('_sql'));
    expect(sqlTools.length).toBeGreaterThan(3);
    for (const tool of sqlTools)
      expect(tool.description.length, tool.name).toBeLessThanOrEqual(DESCRIPTION_BUDGET_CHARS);
    const orb = sqlTools.find((t) => t.name === 'orb_sql')!;
    expect(orb.description).toContain('invoices(id, created_at, invoice_date');
    expect(orb.description).toContain('customers(');
    expect(orb.inputSchema.required).toEqual(['connector_id', 'query']);
  });
});
