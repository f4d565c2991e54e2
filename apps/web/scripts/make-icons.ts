/**
 * Draws the app icons (a white speech bubble on the accent blue) as PNG files in public/, so the
 * installed app has the sizes browsers ask for. Run after changing the drawing:
 * `node apps/web/scripts/make-icons.ts`. Written with node:zlib alone, no image library.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';

const background = [0x1d, 0x4e, 0xd8];
const foreground = [0xff, 0xff, 0xff];

/** Coverage (0..1) of the bubble at a point in a 0..1 square; `inset` shrinks it for maskable icons. */
function bubble(x: number, y: number, inset: number): number {
  const scale = 1 - 2 * inset;
  const u = (x - inset) / scale;
  const v = (y - inset) / scale;
  // A rounded rectangle from (0.2, 0.24) to (0.8, 0.68), corner radius 0.12, and a tail below left.
  const [left, top, right, bottom, radius] = [0.2, 0.24, 0.8, 0.68, 0.12];
  const dx = Math.max(left + radius - u, 0, u - (right - radius));
  const dy = Math.max(top + radius - v, 0, v - (bottom - radius));
  const inBody = Math.hypot(dx, dy) <= radius;
  const inTail = v >= bottom - 0.02 && v <= 0.82 && u >= 0.3 && u <= 0.3 + (0.82 - v) * 1.1 && u <= 0.46;
  return inBody || inTail ? 1 : 0;
}

function png(size: number, inset: number, rounded: boolean): Buffer {
  const samples = 4;
  const rows: Buffer[] = [];
  for (let row = 0; row < size; row++) {
    const line = Buffer.alloc(1 + size * 4);
    for (let column = 0; column < size; column++) {
      let cover = 0;
      let inside = 0;
      for (let sy = 0; sy < samples; sy++)
        for (let sx = 0; sx < samples; sx++) {
          const x = (column + (sx + 0.5) / samples) / size;
          const y = (row + (sy + 0.5) / samples) / size;
          cover += bubble(x, y, inset);
          const corner = 0.22;
          const cx = Math.max(corner - x, 0, x - (1 - corner));
          const cy = Math.max(corner - y, 0, y - (1 - corner));
          inside += !rounded || Math.hypot(cx, cy) <= corner ? 1 : 0;
        }
      const mix = cover / samples ** 2;
      const offset = 1 + column * 4;
      for (let channel = 0; channel < 3; channel++)
        line[offset + channel] = Math.round(background[channel]! * (1 - mix) + foreground[channel]! * mix);
      line[offset + 3] = Math.round((255 * inside) / samples ** 2);
    }
    rows.push(line);
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header.set([8, 6, 0, 0, 0], 8);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(Buffer.concat(rows), { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

function crc32(bytes: Buffer): number {
  let crc = 0xffffffff;
  for (const byte of bytes) {
    crc ^= byte;
    for (let bit = 0; bit < 8; bit++) crc = crc & 1 ? (crc >>> 1) ^ 0xedb88320 : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
}

const publicDirectory = join(import.meta.dirname, '..', 'public');
writeFileSync(join(publicDirectory, 'icon-192.png'), png(192, 0, true));
writeFileSync(join(publicDirectory, 'icon-512.png'), png(512, 0, true));
// Maskable: full-bleed background, the bubble inside the 80% safe zone.
writeFileSync(join(publicDirectory, 'icon-maskable-512.png'), png(512, 0.1, false));
writeFileSync(join(publicDirectory, 'apple-touch-icon.png'), png(180, 0.06, false));
