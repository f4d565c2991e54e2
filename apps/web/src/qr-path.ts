/** A QR matrix drawn as one SVG path: a few kilobytes of markup instead of thousands of rects. */
export interface QrDrawing {
  /** Modules per side, without the quiet zone. */
  size: number;
  /** Path data in module units: one rectangle per horizontal run of dark modules. */
  path: string;
}

/** `rows[y][x]` true for a dark module. */
export function qrPath(rows: readonly (readonly boolean[])[]): QrDrawing {
  const parts: string[] = [];
  rows.forEach((row, y) => {
    let x = 0;
    while (x < row.length) {
      if (!row[x]) {
        x += 1;
        continue;
      }
      const start = x;
      while (x < row.length && row[x]) x += 1;
      parts.push(`M${start} ${y}h${x - start}v1h${start - x}z`);
    }
  });
  return { size: rows.length, path: parts.join('') };
}

/**
 * Encodes `text` as a QR matrix. The encoder is loaded on first use, so the chat's main bundle
 * does not carry it; the QR is computed here and never sent to any other service.
 */
export async function encodeQr(text: string): Promise<QrDrawing> {
  const { encode } = await import('uqr');
  // Medium error correction: reliable from a screen, and the WhatsApp payload still fits small.
  return qrPath(encode(text, { ecc: 'M', border: 0 }).data);
}
