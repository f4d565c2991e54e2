export interface ImageDimensions {
  width: number;
  height: number;
}

/**
 * Width and height from a PNG, JPEG, GIF or WebP header, without decoding the image; undefined
 * for other or truncated bytes. Platforms cap photo dimensions (Telegram: width + height at most
 * 10,000, ratio at most 20), so an adapter must know them before choosing how to send a picture.
 */
export function readImageDimensions(bytes: Uint8Array): ImageDimensions | undefined {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const starts = (...magic: number[]) => magic.every((byte, index) => bytes[index] === byte);
  try {
    // PNG: the IHDR chunk comes first; width and height are big-endian 32-bit.
    if (starts(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)) {
      return positive(view.getUint32(16), view.getUint32(20));
    }
    // GIF87a/89a: the logical screen size, little-endian 16-bit.
    if (starts(0x47, 0x49, 0x46, 0x38)) return positive(view.getUint16(6, true), view.getUint16(8, true));
    if (starts(0xff, 0xd8)) return jpegDimensions(bytes, view);
    if (starts(0x52, 0x49, 0x46, 0x46) && isWebp(bytes)) {
      return webpDimensions(bytes, view);
    }
  } catch {
    // A header cut short (DataView read past the end): not an image we can measure.
  }
  return undefined;
}

/** JPEG: walk the marker segments to the first start-of-frame (SOF0–SOF15 but DHT, JPG, DAC). */
function jpegDimensions(bytes: Uint8Array, view: DataView): ImageDimensions | undefined {
  let offset = 2;
  while (offset + 4 <= bytes.length) {
    if (bytes[offset] !== 0xff) return undefined;
    const marker = bytes[offset + 1] as number;
    if (marker === 0xff) {
      offset += 1; // fill byte
      continue;
    }
    // Markers without a length: TEM and RST0–7.
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      offset += 2;
      continue;
    }
    const length = view.getUint16(offset + 2);
    const isFrame = marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
    if (isFrame) return positive(view.getUint16(offset + 7), view.getUint16(offset + 5));
    if (marker === 0xda || length < 2) return undefined; // image data before any frame header
    offset += 2 + length;
  }
  return undefined;
}

function isWebp(bytes: Uint8Array): boolean {
  return bytes[8] === 0x57 && bytes[9] === 0x45 && bytes[10] === 0x42 && bytes[11] === 0x50;
}

/** WebP: the first chunk says which header follows (lossy VP8, lossless VP8L, extended VP8X). */
function webpDimensions(bytes: Uint8Array, view: DataView): ImageDimensions | undefined {
  const chunk = String.fromCharCode(...bytes.subarray(12, 16));
  if (chunk === 'VP8X') {
    const width = 1 + (view.getUint16(24, true) | ((bytes[26] as number) << 16));
    const height = 1 + (view.getUint16(27, true) | ((bytes[29] as number) << 16));
    return positive(width, height);
  }
  if (chunk === 'VP8L') {
    const bits = view.getUint32(21, true);
    return positive((bits & 0x3fff) + 1, ((bits >>> 14) & 0x3fff) + 1);
  }
  if (chunk === 'VP8 ') {
    return positive(view.getUint16(26, true) & 0x3fff, view.getUint16(28, true) & 0x3fff);
  }
  return undefined;
}

function positive(width: number, height: number): ImageDimensions | undefined {
  return width > 0 && height > 0 ? { width, height } : undefined;
}
