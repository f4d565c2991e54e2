import { describe, expect, it } from 'vitest';
import { parseClientFrame } from './parse-client-frame.ts';

const text = (value: string) => parseClientFrame(Buffer.from(value), false);

describe('parseClientFrame', () => {
  it('accepts each valid client frame', () => {
    expect(text('{"type":"hello","v":1,"clientId":"c1"}')).toEqual({
      ok: true,
      frame: { type: 'hello', v: 1, clientId: 'c1' },
    });
    expect(text('{"type":"message","clientMessageId":"m","conversationId":"c-1","text":"hi"}')).toMatchObject(
      {
        ok: true,
      },
    );
    expect(text('{"type":"resume","conversationId":"c","lastSeq":3}')).toMatchObject({ ok: true });
    expect(text('{"type":"ping"}')).toMatchObject({ ok: true, frame: { type: 'ping' } });
  });

  it('names what is wrong without echoing the input', () => {
    const result = text('{"type":"message","clientMessageId":"m","conversationId":"<script>","text":"hi"}');
    expect(result).toMatchObject({ ok: false, code: 'bad_frame' });
    expect(result.ok ? '' : result.message).toMatch(/^message\.conversationId: /);
    expect(result.ok ? '' : result.message).not.toContain('<script>');
  });

  it('tells unknown frame types from malformed ones', () => {
    expect(text('{"type":"subscribe"}')).toMatchObject({ ok: false, code: 'unknown_frame' });
    for (const bad of ['', 'nope', '42', 'null', '[]', '{"type":1}', '{}']) {
      expect(text(bad)).toMatchObject({ ok: false, code: 'bad_frame' });
    }
  });

  it('rejects binary frames and invalid UTF-8', () => {
    expect(parseClientFrame(Buffer.from('{"type":"ping"}'), true)).toMatchObject({
      ok: false,
      code: 'bad_frame',
    });
    expect(parseClientFrame(Buffer.from([0x7b, 0xff, 0x7d]), false)).toMatchObject({
      ok: false,
      message: 'frame is not valid UTF-8',
    });
  });

  it('accepts fragmented input delivered as several buffers', () => {
    expect(parseClientFrame([Buffer.from('{"type":'), Buffer.from('"ping"}')], false)).toMatchObject({
      ok: true,
    });
  });
});
