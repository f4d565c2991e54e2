import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { schemaEdgeCases } from './schema-edge-cases.ts';

describe('schemaEdgeCases', () => {
  const schema = z.object({
    name: z.string().min(1).max(5),
    count: z.number().int().min(0).max(9).default(2),
    tags: z.array(z.string()).max(2).default([]),
    kind: z.enum(['a', 'b']).optional(),
    inner: z.object({ on: z.boolean() }),
  });
  const valid = { name: 'ann', count: 3, tags: ['t'], kind: 'a', inner: { on: true } };
  const cases = new Map(schemaEdgeCases(schema, valid));

  it('puts each string, number and array at and past the limits the schema declares', () => {
    expect(cases.get('name: 0 characters')).toEqual({ ...valid, name: '' });
    expect(cases.get('name: 6 characters')).toEqual({ ...valid, name: 'xxxxxx' });
    expect(cases.get('count: 10')).toEqual({ ...valid, count: 10 });
    expect(cases.get('count: a fraction')).toEqual({ ...valid, count: 0.5 });
    expect(cases.get('tags: 3 elements')).toEqual({ ...valid, tags: ['t', 't', 't'] });
    expect(cases.get('kind: not an option')).toEqual({ ...valid, kind: 'not-an-option' });
  });

  it('changes one field of a copy, nested ones too, and leaves the valid value alone', () => {
    expect(cases.get('inner.on: text')).toEqual({ ...valid, inner: { on: 'true' } });
    expect(cases.get('inner: absent')).toEqual({ name: 'ann', count: 3, tags: ['t'], kind: 'a' });
    expect(valid).toEqual({ name: 'ann', count: 3, tags: ['t'], kind: 'a', inner: { on: true } });
  });

  it('gives values the schema refuses and values it takes', () => {
    const outcomes = [...cases.values()].map((value) => schema.safeParse(value).success);
    expect(outcomes).toContain(true);
    expect(outcomes).toContain(false);
  });
});
