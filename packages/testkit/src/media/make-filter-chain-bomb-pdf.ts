import { once } from 'node:events';
import { createDeflate, deflateSync } from 'node:zlib';
import { assemblePdf } from './make-pdf.ts';

export type BombFilterChain = 'flate-flate' | 'hex-flate';

/**
 * A one-page PDF whose content stream goes through a chain of two filters and decodes to
 * `inflatedBytes` of zeros. The outer layer is small (about 4 KB for 2 GB of zeros), so a guard that
 * inflates each stream once, ignoring `/Filter`, sees nothing; pdf.js applies the whole chain.
 * The zeros are compressed as a stream from one reused megabyte, so building a 2 GB bomb does
 * not itself hold 2 GB.
 */
export async function makeFilterChainBombPdf(
  inflatedBytes: number,
  chain: BombFilterChain = 'flate-flate',
): Promise<Uint8Array> {
  const inner = await deflateZeros(inflatedBytes);
  const [filter, data] =
    chain === 'flate-flate'
      ? ['[/FlateDecode /FlateDecode]', deflateSync(inner, { level: 9 })]
      : // ASCIIHexDecode is applied first: the stream holds the hex spelling of the deflated zeros.
        ['[/ASCIIHexDecode /FlateDecode]', Buffer.from(`${inner.toString('hex')}>`, 'latin1')];
  const objects: Array<string | Buffer> = [];
  objects[1] = '<< /Type /Catalog /Pages 2 0 R >>';
  objects[2] = '<< /Type /Pages /Kids [3 0 R] /Count 1 >>';
  objects[3] = '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R >>';
  objects[4] = Buffer.concat([
    Buffer.from(`<< /Length ${data.length} /Filter ${filter} >>\nstream\n`, 'latin1'),
    data,
    Buffer.from('\nendstream', 'latin1'),
  ]);
  return assemblePdf(objects);
}

async function deflateZeros(total: number): Promise<Buffer> {
  const deflate = createDeflate({ level: 9 });
  const parts: Buffer[] = [];
  deflate.on('data', (part: Buffer) => parts.push(part));
  const chunk = Buffer.alloc(Math.min(total, 1024 * 1024));
  for (let written = 0; written < total; written += chunk.length) {
    const piece = total - written < chunk.length ? chunk.subarray(0, total - written) : chunk;
    if (!deflate.write(piece)) await once(deflate, 'drain');
  }
  deflate.end();
  await once(deflate, 'end');
  return Buffer.concat(parts);
}
