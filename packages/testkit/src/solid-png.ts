import { crc32, deflateSync } from 'node:zlib';

/**
 * A real PNG of one solid colour, built chunk by chunk (signature, IHDR, IDAT, IEND with their
 * CRCs), so media tests send bytes any decoder accepts without a binary fixture in the repo.
 */
export function solidPng(
  options: { width?: number; height?: number; rgb?: [number, number, number] } = {},
): Buffer {
  const width = options.width ?? 4;
  const height = options.height ?? 4;
  const [red, green, blue] = options.rgb ?? [200, 40, 40];
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = 2; // colour type: truecolour
  const row = Buffer.alloc(1 + width * 3);
  for (let x = 0; x < width; x++) row.set([red, green, blue], 1 + x * 3);
  const pixels = Buffer.concat(Array.from({ length: height }, () => row));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(pixels)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const typed = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const checksum = Buffer.alloc(4);
  checksum.writeUInt32BE(crc32(typed));
  return Buffer.concat([length, typed, checksum]);
}
