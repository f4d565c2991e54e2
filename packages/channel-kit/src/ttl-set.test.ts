import { describe, expect, it } from 'vitest';
import { TtlSet } from './ttl-set.ts';

function clock() {
  let time = 1_000;
  return { now: () => time, advance: (ms: number) => (time += ms) };
}

describe('TtlSet', () => {
  it('remembers keys until their ttl passes', () => {
    const time = clock();
    const set = new TtlSet({ ttlMs: 100, maxSize: 10, now: time.now });
    set.add('update:1');
    expect(set.has('update:1')).toBe(true);
    time.advance(99);
    expect(set.has('update:1')).toBe(true);
    time.advance(1);
    expect(set.has('update:1')).toBe(false);
    expect(set.size).toBe(0);
  });

  it('forgets a deleted key so it can be added again', () => {
    const set = new TtlSet({ ttlMs: 100, maxSize: 10, now: clock().now });
    set.add('message:1');
    set.delete('message:1');
    expect(set.addIfAbsent('message:1')).toBe(true);
  });

  it('addIfAbsent reports whether the key was new', () => {
    const time = clock();
    const set = new TtlSet({ ttlMs: 100, maxSize: 10, now: time.now });
    expect(set.addIfAbsent('a')).toBe(true);
    expect(set.addIfAbsent('a')).toBe(false);
    time.advance(100);
    expect(set.addIfAbsent('a')).toBe(true);
  });

  it('evicts the least recently used key beyond maxSize', () => {
    const set = new TtlSet({ ttlMs: 10_000, maxSize: 3 });
    set.add('a');
    set.add('b');
    set.add('c');
    expect(set.has('a')).toBe(true); // touch: b is now the least recently used
    set.add('d');
    expect(set.size).toBe(3);
    expect(set.has('b')).toBe(false);
    expect(set.has('a')).toBe(true);
    expect(set.has('c')).toBe(true);
    expect(set.has('d')).toBe(true);
  });

  it('re-adding refreshes the ttl', () => {
    const time = clock();
    const set = new TtlSet({ ttlMs: 100, maxSize: 10, now: time.now });
    set.add('a');
    time.advance(80);
    set.add('a');
    time.advance(80);
    expect(set.has('a')).toBe(true);
  });

  it('stays bounded under many keys', () => {
    const set = new TtlSet({ ttlMs: 60_000, maxSize: 100 });
    for (let index = 0; index < 10_000; index += 1) set.add(`key:${index}`);
    expect(set.size).toBe(100);
    expect(set.has('key:9999')).toBe(true);
    expect(set.has('key:0')).toBe(false);
  });

  it('rejects nonsensical options', () => {
    expect(() => new TtlSet({ ttlMs: 0, maxSize: 1 })).toThrow(RangeError);
    expect(() => new TtlSet({ ttlMs: 1, maxSize: 0 })).toThrow(RangeError);
  });
});
