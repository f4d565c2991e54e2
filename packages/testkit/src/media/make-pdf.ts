import { deflateSync } from 'node:zlib';

/**
 * A valid PDF written by hand (catalog, page tree, Helvetica, one text stream per page, a real
 * cross-reference table), so pdf.js parses it without repairs. `pages` makes a long one.
 */
export function makePdf(pageTexts: string[]): Uint8Array {
  const objects: string[] = [];
  const pageCount = pageTexts.length;
  const fontId = 3;
  const firstPageId = 4;
  objects[1] = '<< /Type /Catalog /Pages 2 0 R >>';
  const kids = pageTexts.map((_, index) => `${firstPageId + index * 2} 0 R`).join(' ');
  objects[2] = `<< /Type /Pages /Kids [${kids}] /Count ${pageCount} >>`;
  objects[fontId] = '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>';
  pageTexts.forEach((text, index) => {
    const pageId = firstPageId + index * 2;
    const escaped = text.replace(/[\\()]/g, (character) => `\\${character}`);
    const content = `BT /F1 12 Tf 72 720 Td (${escaped}) Tj ET`;
    objects[pageId] =
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 ${fontId} 0 R >> >> /Contents ${pageId + 1} 0 R >>`;
    objects[pageId + 1] = `<< /Length ${content.length} >>\nstream\n${content}\nendstream`;
  });
  return assemblePdf(objects);
}

/** A one-page PDF whose content stream inflates to `inflatedBytes` of zeros: a decompression bomb. */
export function makeCompressedBombPdf(inflatedBytes = 512 * 1024 * 1024): Uint8Array {
  const squeezed = deflateSync(Buffer.alloc(inflatedBytes), { level: 9 });
  const objects: Array<string | Buffer> = [];
  objects[1] = '<< /Type /Catalog /Pages 2 0 R >>';
  objects[2] = '<< /Type /Pages /Kids [3 0 R] /Count 1 >>';
  objects[3] = '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R >>';
  objects[4] = Buffer.concat([
    Buffer.from(`<< /Length ${squeezed.length} /Filter /FlateDecode >>\nstream\n`, 'latin1'),
    squeezed,
    Buffer.from('\nendstream', 'latin1'),
  ]);
  return assemblePdf(objects);
}

/** Objects 1..n, a real cross-reference table and trailer around them. */
export function assemblePdf(objects: Array<string | Buffer | undefined>): Uint8Array {
  const parts: Buffer[] = [Buffer.from('%PDF-1.4\n', 'latin1')];
  let length = parts[0]?.length ?? 0;
  const offsets: number[] = [];
  for (let id = 1; id < objects.length; id += 1) {
    offsets[id] = length;
    const body = objects[id] ?? 'null';
    const part = Buffer.concat([
      Buffer.from(`${id} 0 obj\n`, 'latin1'),
      typeof body === 'string' ? Buffer.from(body, 'latin1') : body,
      Buffer.from('\nendobj\n', 'latin1'),
    ]);
    parts.push(part);
    length += part.length;
  }
  const rows = offsets.slice(1).map((offset) => `${String(offset).padStart(10, '0')} 00000 n \n`);
  const trailer =
    `xref\n0 ${objects.length}\n0000000000 65535 f \n${rows.join('')}` +
    `trailer\n<< /Size ${objects.length} /Root 1 0 R >>\nstartxref\n${length}\n%%EOF\n`;
  parts.push(Buffer.from(trailer, 'latin1'));
  return Buffer.concat(parts);
}
