import { encode } from 'uqr';
import { describe, expect, it } from 'vitest';
import { encodeQr, qrPath } from './qr-path.ts';
import { matrixFromPath, rasterize, readQr } from './testing/read-qr.ts';

/** Shaped like Baileys' `connection.update` QR: ref, noise key, identity key, adv secret. */
const WHATSAPP_QR =
  '2@Xq1h3WwHk8bI0mYl9vZ5aF2pT7cR4uJ6eN0sD1gK3oL8iQ9zB,ZmFrZS1ub2lzZS1rZXktMDEyMzQ1Njc4OWFiY2RlZg==,ZmFrZS1pZGVudGl0eS1rZXktMDEyMzQ1Njc4OWFi,ZmFrZS1hZHYtc2VjcmV0LTAxMjM0NTY3ODlhYmNkZWY=';

describe('qrPath', () => {
  it('draws one rectangle per horizontal run of dark modules', () => {
    const drawing = qrPath([
      [true, true, false],
      [false, false, false],
      [true, false, true],
    ]);
    expect(drawing).toEqual({ size: 3, path: 'M0 0h2v1h-2zM0 2h1v1h-1zM2 2h1v1h-1z' });
  });

  it('keeps every module of a real QR matrix', () => {
    const rows = encode('https://example.test/nexus', { border: 0 }).data;
    const drawing = qrPath(rows);
    expect(matrixFromPath(drawing.path, drawing.size)).toEqual(rows);
  });
});

describe('encodeQr', () => {
  it('produces a code that an independent decoder reads back as the WhatsApp payload', async () => {
    const drawing = await encodeQr(WHATSAPP_QR);
    expect(drawing.size).toBeGreaterThan(21);
    expect(readQr(rasterize(matrixFromPath(drawing.path, drawing.size)))).toBe(WHATSAPP_QR);
  });
});
