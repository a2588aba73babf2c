import { ConnectorError, findConnectorDefinition } from '@conduit/connectors';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../problem.ts';
import { executeEnvelopes } from './execute-envelopes.ts';
import { KeptValues } from './kept-values.ts';

const orb = findConnectorDefinition('Orb')!.catalog;

describe('executeEnvelopes', () => {
  it('keeps a search read once, frozen, and hands the same envelope to the same text again', () => {
    const envelopeOf = executeEnvelopes(8);
    const text = JSON.stringify({
      entity: 'invoices',
      action: 'search',
      params: { query: { filter: { status: 'paid' } } },
    });
    const first = envelopeOf(orb, text);
    expect(first.body).toEqual({
      entity: 'invoices',
      action: 'search',
      params: { query: { filter: { status: 'paid' } } },
    });
    expect(envelopeOf(orb, text)).toBe(first);
    expect(Object.isFrozen(first.body.params)).toBe(true);
    expect(Object.isFrozen((first.body.params as { query: object }).query)).toBe(true);
  });

  it('reads every other action afresh, its params left changeable for the connector', () => {
    const envelopeOf = executeEnvelopes(8);
    const text = JSON.stringify({ entity: 'customers', action: 'create', params: { name: 'acme' } });
    const first = envelopeOf(orb, text);
    expect(envelopeOf(orb, text)).not.toBe(first);
    expect(Object.isFrozen(first.body.params)).toBe(false);
  });

  it('refuses a body that does not parse (400) or validate (invalid_request) every time, keeping nothing', () => {
    const envelopeOf = executeEnvelopes(8);
    for (let i = 0; i < 2; i++) {
      expect(() => envelopeOf(orb, '{"entity":')).toThrow(ApiError);
      expect(() => envelopeOf(orb, '{"entity":"invoices","action":"search","extra":1}')).toThrow(ConnectorError);
    }
  });

  it('redacts what the trail keeps of a kept search as of one read afresh', () => {
    const text = JSON.stringify({ entity: 'invoices', action: 'search', params: { api_key: 'x', limit: 5 } });
    expect(executeEnvelopes(8)(orb, text).auditParams).toEqual(executeEnvelopes(0)(orb, text).auditParams);
    expect(JSON.stringify(executeEnvelopes(8)(orb, text).auditParams)).not.toContain('"x"');
  });
});

describe('KeptValues', () => {
  it('keeps the most recently used values and makes the rest again', () => {
    const kept = new KeptValues<{ key: string }>(2, 10);
    let made = 0;
    const make = (key: string) => () => {
      made++;
      return { key };
    };
    const a = kept.get('a', make('a'));
    kept.get('b', make('b'));
    expect(kept.get('a', make('a'))).toBe(a);
    kept.get('c', make('c'));
    expect(made).toBe(3);
    // `b` was the least recently used: it went when `c` came.
    kept.get('b', make('b'));
    expect(made).toBe(4);
    kept.get('a-key-over-ten-characters', make('long'));
    kept.get('a-key-over-ten-characters', make('long'));
    expect(made).toBe(6);
  });
});
