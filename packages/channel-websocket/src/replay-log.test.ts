import { describe, expect, it } from 'vitest';
import { ReplayLog } from './replay-log.ts';

function createLog(overrides: Partial<ConstructorParameters<typeof ReplayLog>[0]> = {}): ReplayLog {
  return new ReplayLog({
    replayLimit: 100,
    maxConversations: 100,
    maxBytes: 1_000_000,
    initialSeq: 0,
    ...overrides,
  });
}

function append(log: ReplayLog, conversationId: string, owner = 'alice', text = 'x'): number {
  return log.append(conversationId, owner, (seq) => `${conversationId}#${seq}:${text}`).seq;
}

describe('ReplayLog', () => {
  it('gives each conversation strictly increasing seqs and replays only what came after lastSeq', () => {
    const log = createLog();
    const a1 = append(log, 'a');
    const b1 = append(log, 'b');
    const a2 = append(log, 'a');
    expect([a1, b1, a2]).toEqual([1, 2, 3]);
    expect(log.replay('a', 0)).toEqual({ frames: ['a#1:x', 'a#3:x'], complete: true, lastSeq: 3 });
    expect(log.replay('a', a1)).toEqual({ frames: ['a#3:x'], complete: true, lastSeq: 3 });
    expect(log.replay('a', a2)).toEqual({ frames: [], complete: true, lastSeq: 3 });
  });

  it('keeps the newest replayLimit events and reports an incomplete replay beyond them', () => {
    const log = createLog({ replayLimit: 2 });
    const seqs = [append(log, 'a'), append(log, 'a'), append(log, 'a')];
    expect(log.replay('a', 0)).toMatchObject({ frames: ['a#2:x', 'a#3:x'], complete: false });
    expect(log.replay('a', seqs[0]!)).toMatchObject({ frames: ['a#2:x', 'a#3:x'], complete: true });
  });

  it('keeps an ended reply as its start and end: the deltas go once the end (the full text) is stored', () => {
    const log = createLog();
    const frame = (text: string) => (seq: number) => `a#${seq}:${text}`;
    const start = log.append('a', 'alice', frame('start r1')).seq;
    const firstDelta = log.append('a', 'alice', frame('Hel'), { deltaOf: 'r1' }).seq;
    log.append('a', 'alice', frame('lo'), { deltaOf: 'r1' });
    // Another reply still streaming in the same conversation keeps its deltas.
    log.append('a', 'alice', frame('Wor'), { deltaOf: 'r2' });
    const bytesBefore = log.totalBytes;
    log.append('a', 'alice', frame('end r1 Hello'), { endOf: 'r1' });
    expect(log.replay('a', 0)).toEqual({
      frames: ['a#1:start r1', 'a#4:Wor', 'a#5:end r1 Hello'],
      complete: true,
      lastSeq: 5,
    });
    // A client that saw part of the reply gets its end, which carries the whole text.
    expect(log.replay('a', firstDelta)).toEqual({
      frames: ['a#4:Wor', 'a#5:end r1 Hello'],
      complete: true,
      lastSeq: 5,
    });
    expect(log.replay('a', start).complete).toBe(true);
    expect(log.totalBytes).toBe(bytesBefore - 'a#2:Hel'.length - 'a#3:lo'.length + 'a#5:end r1 Hello'.length);
  });

  it("drops a reply's deltas from the newest events at its end, and forgets deltas that aged out", () => {
    const log = createLog({ replayLimit: 3 });
    const frame = (text: string) => (seq: number) => `a#${seq}:${text}`;
    // A reply that never ended leaves a delta; the limit drops it before the next reply ends.
    log.append('a', 'alice', frame('lost'), { deltaOf: 'r0' });
    log.append('a', 'alice', frame('start r1'));
    log.append('a', 'alice', frame('Hel'), { deltaOf: 'r1' });
    log.append('a', 'alice', frame('lo'), { deltaOf: 'r1' });
    log.append('a', 'alice', frame('end r1 Hello'), { endOf: 'r1' });
    log.append('a', 'alice', frame('Wor'), { deltaOf: 'r2' });
    log.append('a', 'alice', frame('end r2 World'), { endOf: 'r2' });
    const frames = ['a#2:start r1', 'a#5:end r1 Hello', 'a#7:end r2 World'];
    expect(log.replay('a', 1)).toEqual({ frames, complete: true, lastSeq: 7 });
    expect(log.replay('a', 0).complete).toBe(false);
    expect(log.totalBytes).toBe(frames.join('').length);
  });

  it('binds a conversation to its first client', () => {
    const log = createLog();
    expect(log.claim('a', 'alice')).toBe('claimed');
    expect(log.claim('a', 'alice')).toBe('owned');
    expect(log.claim('a', 'mallory')).toBe('forbidden');
    append(log, 'b', 'bob');
    expect(log.owner('b')).toBe('bob');
    expect(log.claim('b', 'alice')).toBe('forbidden');
  });

  it('forgets a conversation its owner deleted, and refuses anyone else', () => {
    const log = createLog();
    append(log, 'a', 'alice', 'secret');
    expect(log.forget('a', 'mallory')).toBe(false);
    expect(log.replay('a', 0).frames).toHaveLength(1);
    const bytesBefore = log.totalBytes;
    expect(log.forget('a', 'alice')).toBe(true);
    expect(log.owner('a')).toBeUndefined();
    expect(log.totalBytes).toBeLessThan(bytesBefore);
    expect(log.replay('a', 0).frames).toEqual([]);
    expect(log.forget('never-held', 'alice')).toBe(true);
  });

  it('forgets the least recently used conversation beyond maxConversations', () => {
    const log = createLog({ maxConversations: 2 });
    append(log, 'a');
    append(log, 'b');
    append(log, 'a'); // a is now the most recent
    append(log, 'c');
    expect(log.owner('b')).toBeUndefined();
    expect(log.owner('a')).toBe('alice');
    expect(log.size).toBe(2);
  });

  it('never reissues a seq after forgetting a conversation, and flags clients from before', () => {
    const log = createLog({ maxConversations: 1 });
    const old = append(log, 'a');
    append(log, 'b'); // evicts a
    log.claim('a', 'alice');
    const fresh = append(log, 'a');
    expect(fresh).toBeGreaterThan(old);
    expect(log.replay('a', old)).toMatchObject({ frames: [`a#${fresh}:x`], complete: false });
  });

  it('starts from initialSeq so a restarted server does not reuse numbers', () => {
    const log = createLog({ initialSeq: 1_700_000_000_000_000 });
    expect(append(log, 'a')).toBe(1_700_000_000_000_001);
    expect(log.replay('a', 5)).toMatchObject({ complete: false });
    expect(log.replay('a', 1_700_000_000_000_005)).toMatchObject({ complete: false });
  });

  it('drops the events of idle conversations first when over the byte budget, keeping their owner', () => {
    const log = createLog({ maxBytes: 100 });
    append(log, 'idle', 'alice', 'i'.repeat(40));
    append(log, 'busy', 'bob', 'b'.repeat(40));
    append(log, 'busy', 'bob', 'b'.repeat(40));
    expect(log.totalBytes).toBeLessThanOrEqual(100);
    expect(log.replay('idle', 0)).toMatchObject({ frames: [], complete: false });
    expect(log.owner('idle')).toBe('alice');
    expect(log.replay('busy', 0).frames).toHaveLength(2);
    append(log, 'busy', 'bob', 'b'.repeat(40));
    expect(log.replay('busy', 0).frames).toHaveLength(2);
  });
});
