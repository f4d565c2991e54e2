import { makePng } from '@nexus/testkit/media';
import { describe, expect, it } from 'vitest';
import { readImageDimensions } from './read-image-dimensions.ts';

/** A baseline JPEG's headers up to its frame: SOI, an APP0 (JFIF) segment, SOF0 (ITU T.81 B.2.2). */
function jpegHeader(width: number, height: number, frameMarker = 0xc0): Uint8Array {
  const app0 = [0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 1, 1, 0, 0, 1, 0, 1, 0, 0];
  const frame = [0xff, frameMarker, 0x00, 0x11, 8, height >> 8, height & 0xff, width >> 8, width & 0xff, 3];
  return Uint8Array.from([0xff, 0xd8, 0xff, 0xff, ...app0, ...frame, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1]);
}

/** RIFF/WEBP container with one chunk (RFC 9649). */
function webp(chunk: string, payload: number[]): Uint8Array {
  const body = [...Buffer.from(chunk, 'latin1'), ...le32(payload.length), ...payload];
  return Uint8Array.from([...Buffer.from('RIFF'), ...le32(4 + body.length), ...Buffer.from('WEBP'), ...body]);
}

function le32(value: number): number[] {
  return [value & 0xff, (value >> 8) & 0xff, (value >> 16) & 0xff, (value >>> 24) & 0xff];
}

describe('readImageDimensions', () => {
  it('reads PNG from a real zlib-encoded file', () => {
    expect(readImageDimensions(makePng(100, 2100))).toEqual({ width: 100, height: 2100 });
  });

  it('reads JPEG baseline and progressive frame headers, skipping other segments', () => {
    expect(readImageDimensions(jpegHeader(8000, 6000))).toEqual({ width: 8000, height: 6000 });
    expect(readImageDimensions(jpegHeader(640, 480, 0xc2))).toEqual({ width: 640, height: 480 });
    // DHT (0xC4) is not a frame header even though it sits in the SOF range.
    expect(readImageDimensions(jpegHeader(640, 480, 0xc4))).toBeUndefined();
  });

  it('reads GIF and the three WebP headers', () => {
    const gif = Uint8Array.from([...Buffer.from('GIF89a'), 33, 0, 44, 0, 0, 0, 0]);
    expect(readImageDimensions(gif)).toEqual({ width: 33, height: 44 });
    // VP8X: flags, 3 reserved bytes, then width-1 and height-1 as 24-bit little-endian.
    const extended = webp('VP8X', [
      0x10,
      0,
      0,
      0,
      ...[11999 & 0xff, (11999 >> 8) & 0xff, 11999 >> 16],
      99,
      0,
      0,
    ]);
    expect(readImageDimensions(extended)).toEqual({ width: 12000, height: 100 });
    // VP8L: signature 0x2f, then 14 bits width-1 and 14 bits height-1.
    const bits = (300 - 1) | ((200 - 1) << 14);
    expect(readImageDimensions(webp('VP8L', [0x2f, ...le32(bits)]))).toEqual({ width: 300, height: 200 });
    // VP8: frame tag (3 bytes), start code 9d 01 2a, then 14-bit width and height.
    const lossy = webp('VP8 ', [0, 0, 0, 0x9d, 0x01, 0x2a, 302 & 0xff, 302 >> 8, 204 & 0xff, 204 >> 8]);
    expect(readImageDimensions(lossy)).toEqual({ width: 302, height: 204 });
  });

  it('answers undefined for other or cut-short bytes', () => {
    expect(readImageDimensions(Buffer.from('%PDF-1.7'))).toBeUndefined();
    expect(readImageDimensions(makePng(4, 4).subarray(0, 18))).toBeUndefined();
    expect(readImageDimensions(jpegHeader(10, 10).subarray(0, 12))).toBeUndefined();
  });
});
