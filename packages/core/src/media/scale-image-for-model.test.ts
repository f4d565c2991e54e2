import { randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { makePng } from '@nexus/testkit/media';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { MODEL_IMAGE_MAX_BYTES, MODEL_IMAGE_MAX_SIDE, scaleImageForModel } from './scale-image-for-model.ts';

/** A PNG of random pixels: it compresses to nothing, as a large photo does not either. */
async function noisePng(width: number, height: number): Promise<Uint8Array> {
  const png = await sharp(randomBytes(width * height * 3), { raw: { width, height, channels: 3 } })
    .png({ compressionLevel: 0 })
    .toBuffer();
  return new Uint8Array(png);
}

describe('scaleImageForModel', () => {
  it('scales a large photo to the side and byte caps the providers accept, keeping its shape', async () => {
    const original = await noisePng(3000, 2000);
    expect(original.byteLength).toBeGreaterThan(MODEL_IMAGE_MAX_BYTES);
    const scaled = await scaleImageForModel({ bytes: original, mediaType: 'image/png' });
    expect(scaled.mediaType).toBe('image/jpeg');
    expect(scaled.bytes.byteLength).toBeLessThanOrEqual(MODEL_IMAGE_MAX_BYTES);
    const { width, height, format } = await sharp(scaled.bytes).metadata();
    expect(format).toBe('jpeg');
    expect(width).toBe(MODEL_IMAGE_MAX_SIDE);
    expect(height).toBe(Math.round((MODEL_IMAGE_MAX_SIDE * 2) / 3));
  });

  it('passes an image that already fits unchanged', async () => {
    const small = makePng(40, 30);
    const same = await scaleImageForModel({ bytes: small, mediaType: 'image/png' });
    expect(same.bytes).toBe(small);
    expect(same.mediaType).toBe('image/png');
  });

  it('refuses bytes that only look like an image, and a header claiming more pixels than it may open', async () => {
    const png = makePng(4, 4);
    const damaged = new Uint8Array([...png.subarray(0, 20), ...randomBytes(200)]);
    await expect(scaleImageForModel({ bytes: damaged, mediaType: 'image/png' })).rejects.toMatchObject({
      code: 'attachment_corrupt',
    });
    // The same tiny file with an IHDR of 40000 × 40000 (its checksum made right).
    const claimed = new Uint8Array(png);
    const header = new DataView(claimed.buffer);
    header.setUint32(16, 40_000);
    header.setUint32(20, 40_000);
    header.setUint32(29, crc32(claimed.subarray(12, 29)));
    await expect(scaleImageForModel({ bytes: claimed, mediaType: 'image/png' })).rejects.toMatchObject({
      code: 'attachment_unsupported',
    });
  });
});
