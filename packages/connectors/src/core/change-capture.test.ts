import { describe, expect, it } from 'vitest';
import { CONNECTOR_DEFINITIONS } from '../kinds/registry.ts';
import { needsFullPasses } from './catalog.ts';

const replicated = CONNECTOR_DEFINITIONS.flatMap((d) =>
  Object.values(d.catalog.entities)
    .filter((e) => e.sync)
    .map((e) => ({ kind: d.catalog.connectorType, entity: e })),
);

describe('change capture (catalog data)', () => {
  it('every incremental entity declares what its cursor sees, its delay and the source of those facts', () => {
    const missing = replicated
      .filter(({ entity }) => entity.sync?.mode === 'incremental' && !entity.changeCapture?.source)
      .map(({ kind, entity }) => `${kind}.${entity.name}`);
    expect(missing).toEqual([]);
  });

  it('a field cursor names its field; a feed cursor needs none', () => {
    for (const { kind, entity } of replicated) {
      if (entity.sync?.mode !== 'incremental') continue;
      const field = entity.changeCapture?.cursor === 'field';
      expect(Boolean(entity.sync.cursorField), `${kind}.${entity.name}`).toBe(field);
    }
  });

  it('derives full passes for creation-time cursors (Orb) and none for full-refresh entities', () => {
    const byName = (kind: string, name: string) =>
      replicated.find((r) => r.kind === kind && r.entity.name === name)!.entity;
    expect(needsFullPasses(byName('Orb', 'customers'))).toBe(true);
    expect(needsFullPasses(byName('Sentry', 'issues'))).toBe(true);
    expect(needsFullPasses(byName('Zendesk-Talk', 'calls'))).toBe(false);
    expect(needsFullPasses(byName('Typeform', 'forms'))).toBe(false);
  });

  it('PayPal transactions and balances look back the documented 3 hours', () => {
    const paypal = CONNECTOR_DEFINITIONS.find((d) => d.catalog.connectorType === 'Paypal-Transaction')!.catalog;
    expect(paypal.entities.transactions?.changeCapture?.lookbackMs).toBe(3 * 3_600_000);
    expect(paypal.entities.balances?.changeCapture?.lookbackMs).toBe(3 * 3_600_000);
  });
});
