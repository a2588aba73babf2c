import { describe, expect, it } from 'vitest';
import { notNull, t } from './field-spec.ts';
import { fields } from './fields.ts';

describe('fields`…`', () => {
  it('gives each name of a line the line type, in the order written, nullable unless marked !', () => {
    const map = fields`
      id!, name: string
      created_at, updated_at: datetime
      rank: integer; score: number; amount: decimal; active: boolean
    `;
    expect(map).toEqual({
      id: notNull(t.string()),
      name: t.string(),
      created_at: t.datetime(),
      updated_at: t.datetime(),
      rank: t.integer(),
      score: t.number(),
      amount: t.decimal(),
      active: t.boolean(),
    });
    expect(Object.keys(map)).toEqual(['id', 'name', 'created_at', 'updated_at', 'rank', 'score', 'amount', 'active']);
  });

  it('reads enums, objects, arrays, nested blocks and interpolated specs', () => {
    const money = t.object({ currency_code: t.string(), value: t.decimal() });
    const map = fields`
      status!: 'firing' | 'resolved'
      creator: object
      attributes: array
      tags: string[]
      address: { line1, city: string; geo: { lat, lon: number } }
      items: {
        sku!: string
      }[]
      total: ${money}
    `;
    expect(map).toEqual({
      status: notNull(t.string({ enum: ['firing', 'resolved'] })),
      creator: t.object(),
      attributes: t.array(),
      tags: t.array(t.string()),
      address: t.object({ line1: t.string(), city: t.string(), geo: t.object({ lat: t.number(), lon: t.number() }) }),
      items: t.array(t.object({ sku: notNull(t.string()) })),
      total: money,
    });
  });

  it('lets a name list continue after a comma, and skips comments', () => {
    const map = fields`
      // why these fields
      event.type, 'odd name',
      other: string /* block
      comment */
      last: boolean // trailing
    `;
    expect(Object.keys(map)).toEqual(['event.type', 'odd name', 'other', 'last']);
  });

  it('throws on what it cannot read, naming the token', () => {
    expect(() => fields`id: text`).toThrow('fields: expected a type, found "text"');
    expect(() => fields`id string`).toThrow('fields: expected ":", found "string"');
    expect(() => fields`id: string name: string`).toThrow('expected a new line or ; after a field, found "name"');
    expect(() => fields`id: string; id: integer`).toThrow('fields: id is declared twice');
    expect(() => fields`status: 'a' | b`).toThrow('expected a quoted enum value, found "b"');
    expect(() => fields`id: string %`).toThrow('fields: unexpected "%"');
    expect(() => fields`address: { line1: string`).toThrow('fields: expected a field name, found the end');
  });
});
