import { describe, expect, it } from 'vitest';
import { decodeJobId, encodeJobId } from './job-id-codec.ts';

describe('job id codec', () => {
  const ids = [
    'turn:42',
    'memory.extract:a:b:c',
    '7',
    '-3',
    '0',
    '%3A',
    '100%',
    '%2342',
    'plain-id',
    '12abc',
    ':',
  ];

  it.each(ids)('round-trips %j', (id) => {
    expect(decodeJobId(encodeJobId(id))).toBe(id);
  });

  it.each(ids)('produces an id BullMQ accepts for %j', (id) => {
    const encoded = encodeJobId(id);
    expect(encoded).not.toContain(':');
    expect(`${Number.parseInt(encoded, 10)}`).not.toBe(encoded);
  });

  it('is one to one on ids that differ only by escapes', () => {
    const encoded = new Set(ids.map(encodeJobId));
    expect(encoded.size).toBe(ids.length);
  });

  it('leaves ordinary ids unchanged', () => {
    expect(encodeJobId('8b3c2a9e-uuid')).toBe('8b3c2a9e-uuid');
  });
});
