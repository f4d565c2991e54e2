import jsQRModule from 'jsqr';

type DecodeQr = (data: Uint8ClampedArray, width: number, height: number) => { data: string } | null;
// jsqr is CommonJS with an `exports.default`: Node's ESM loader hands over the exports object,
// bundlers the function itself. Accept both.
const jsQR = ((jsQRModule as unknown as { default?: DecodeQr }).default ?? jsQRModule) as unknown as DecodeQr;

/** Reads a QR code from RGBA pixels with an independent decoder (jsQR), as a phone camera would. */
export function readQr(image: {
  data: Uint8ClampedArray;
  width: number;
  height: number;
}): string | undefined {
  return jsQR(image.data, image.width, image.height)?.data;
}

/** Back from the panel's SVG path (`M{x} {y}h{run}v1h-{run}z` per run) to the matrix of modules. */
export function matrixFromPath(path: string, size: number): boolean[][] {
  const rows = Array.from({ length: size }, () => Array.from({ length: size }, () => false));
  for (const match of path.matchAll(/M(\d+) (\d+)h(\d+)v1h-\d+z/g)) {
    const [x, y, run] = [Number(match[1]), Number(match[2]), Number(match[3])];
    for (let offset = 0; offset < run; offset += 1) rows[y]![x + offset] = true;
  }
  return rows;
}

/** Dark modules black on white, `scale` pixels each, with a four-module quiet zone. */
export function rasterize(
  rows: readonly (readonly boolean[])[],
  scale = 4,
): { data: Uint8ClampedArray; width: number; height: number } {
  const side = (rows.length + 8) * scale;
  const data = new Uint8ClampedArray(side * side * 4).fill(255);
  rows.forEach((row, y) => {
    row.forEach((dark, x) => {
      if (!dark) return;
      for (let dy = 0; dy < scale; dy += 1) {
        for (let dx = 0; dx < scale; dx += 1) {
          const index = (((y + 4) * scale + dy) * side + (x + 4) * scale + dx) * 4;
          data[index] = data[index + 1] = data[index + 2] = 0;
        }
      }
    });
  });
  return { data, width: side, height: side };
}
