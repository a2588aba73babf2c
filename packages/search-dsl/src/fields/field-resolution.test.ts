import type { FieldMap } from '@conduit/connectors';
import { describe, expect, it } from 'vitest';
import { TEST_SCHEMA } from '../testing/test-schema.ts';
import {
  exactField,
  itemScope,
  knownPaths,
  resolveField,
  rootScope,
  textField,
  wildcardField,
} from './field-resolution.ts';

const root = rootScope(TEST_SCHEMA);

describe('resolveField', () => {
  it('maps a string to its keyword, text and wildcard fields', () => {
    const ref = resolveField(root, 'name')!;
    expect([exactField(ref), textField(ref), wildcardField(ref)]).toEqual(['name', 'name.text', 'name.wc']);
  });

  it('resolves declared sub-fields of objects as typed', () => {
    expect(resolveField(root, 'address.geo.lat')).toMatchObject({
      storage: 'typed',
      physical: 'address.geo.lat',
      spec: { type: 'number' },
    });
  });

  it('sends undeclared sub-paths of a typed object to its flat copy', () => {
    expect(resolveField(root, 'address.geo.alt')).toEqual({
      storage: 'flat',
      path: 'address.geo.alt',
      physical: '_flat.address.geo.alt',
      root: '_flat.address',
      subpath: 'geo.alt',
    });
  });

  it('sends paths inside an untyped object to that flat_object', () => {
    const ref = resolveField(root, 'meta.a.b');
    expect(ref).toMatchObject({ storage: 'flat', physical: 'meta.a.b', root: 'meta', subpath: 'a.b' });
    expect(wildcardField(resolveField(root, 'meta.a')!)).toBe('meta.a');
  });

  it('does not walk through arrays or scalars, nor accept empty segments', () => {
    for (const path of ['lines.sku', 'name.x', 'address..city', '', 'nope'])
      expect(resolveField(root, path)).toBeUndefined();
  });

  it('resolves element fields of an array of objects with absolute physical names', () => {
    const scope = itemScope(resolveField(root, 'lines')!)!;
    expect(resolveField(scope, 'sku')).toMatchObject({ path: 'lines.sku', physical: 'lines.sku' });
    expect(itemScope(resolveField(root, 'tags')!)).toBeUndefined();
  });

  it('matches catalog keys that contain dots', () => {
    const fields: FieldMap = { 'a.b': { type: 'string', nullable: true } };
    expect(resolveField(rootScope(fields), 'a.b')).toMatchObject({ storage: 'typed', physical: 'a.b' });
  });

  it('lists declared paths', () => {
    expect(knownPaths(TEST_SCHEMA)).toContain('address.geo.lat');
    expect(knownPaths(TEST_SCHEMA)).not.toContain('lines.sku');
  });
});
