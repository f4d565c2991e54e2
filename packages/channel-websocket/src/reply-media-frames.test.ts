import { serverFrameSchema } from '@nexus/protocol';
import { describe, expect, it } from 'vitest';
import { replyMediaFrames } from './reply-media-frames.ts';

const event = (base64: string) => ({
  type: 'reply.media' as const,
  replyId: 'r1',
  media: { kind: 'image' as const, mimeType: 'image/png', name: 'a.png', sizeBytes: 3, base64 },
});

describe('replyMediaFrames', () => {
  it('sends the bytes live and keeps them for resume when small', () => {
    const frames = replyMediaFrames({
      conversationId: 'c',
      seq: 4,
      event: event('AAAA'),
      replayMaxChars: 8,
      liveMaxChars: 100,
    });
    expect(frames.live).toBe(frames.replay);
    expect(serverFrameSchema.parse(JSON.parse(frames.live))).toMatchObject({
      seq: 4,
      event: { media: { base64: 'AAAA' } },
    });
  });

  it('keeps a placeholder without the bytes in the replay log above the cap', () => {
    const frames = replyMediaFrames({
      conversationId: 'c',
      seq: 4,
      event: event('A'.repeat(12)),
      replayMaxChars: 8,
      liveMaxChars: 100,
    });
    expect(JSON.parse(frames.live).event.media.base64).toBe('A'.repeat(12));
    const replay = serverFrameSchema.parse(JSON.parse(frames.replay));
    expect(replay).toMatchObject({ event: { media: { base64: '', name: 'a.png', sizeBytes: 3 } } });
    expect(frames.omittedLive).toBe(false);
  });

  it('sends no bytes at all when the frame would overflow the peer', () => {
    const frames = replyMediaFrames({
      conversationId: 'c',
      seq: 4,
      event: event('A'.repeat(200)),
      replayMaxChars: 8,
      liveMaxChars: 100,
    });
    expect(frames.omittedLive).toBe(true);
    expect(JSON.parse(frames.live).event.media.base64).toBe('');
  });
});
