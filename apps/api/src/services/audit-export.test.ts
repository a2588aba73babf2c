import { describe, expect, it } from 'vitest';
import { ExportSlots } from './audit-export.ts';

describe('ExportSlots', () => {
  it('gives an organization its limit of slots, others theirs, and each slot back once however often released', () => {
    const slots = new ExportSlots(2);
    const first = slots.take('org-a');
    const second = slots.take('org-a');
    expect(first && second).toBeTypeOf('function');
    expect(slots.take('org-a')).toBeUndefined();
    expect(slots.take('org-b')).toBeTypeOf('function');
    first!();
    first!();
    expect(slots.take('org-a')).toBeTypeOf('function');
    expect(slots.take('org-a')).toBeUndefined();
  });
});
