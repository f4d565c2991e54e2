/** What the bytes say a file is; the name and the platform's claim are never trusted. */
export interface SniffedType {
  family: 'image' | 'audio' | 'pdf' | 'text' | 'unknown';
  mimeType: string;
}

function startsWith(bytes: Uint8Array, signature: readonly number[], offset = 0): boolean {
  if (bytes.length < offset + signature.length) return false;
  return signature.every((value, index) => bytes[offset + index] === value);
}

function ascii(text: string): number[] {
  return [...text].map((character) => character.charCodeAt(0));
}

/**
 * A small magic-number sniffer for the types core acts on. A library such as `file-type` knows
 * hundreds of formats, but core only accepts these few and anything else gets the same honest
 * "not supported" reply, so the short list is the whole need and adds no dependency.
 */
export function sniffMediaType(bytes: Uint8Array): SniffedType {
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) {
    return { family: 'image', mimeType: 'image/png' };
  }
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return { family: 'image', mimeType: 'image/jpeg' };
  if (startsWith(bytes, ascii('GIF87a')) || startsWith(bytes, ascii('GIF89a'))) {
    return { family: 'image', mimeType: 'image/gif' };
  }
  if (startsWith(bytes, ascii('RIFF')) && startsWith(bytes, ascii('WEBP'), 8)) {
    return { family: 'image', mimeType: 'image/webp' };
  }
  if (startsWith(bytes, ascii('RIFF')) && startsWith(bytes, ascii('WAVE'), 8)) {
    return { family: 'audio', mimeType: 'audio/wav' };
  }
  if (startsWith(bytes, ascii('OggS'))) {
    // The first page carries the codec's identification header right after the segment table.
    const head = new TextDecoder('latin1').decode(bytes.subarray(0, 128));
    return { family: 'audio', mimeType: head.includes('OpusHead') ? 'audio/ogg; codecs=opus' : 'audio/ogg' };
  }
  if (startsWith(bytes, ascii('ID3')) || (bytes[0] === 0xff && ((bytes[1] ?? 0) & 0xe0) === 0xe0)) {
    return { family: 'audio', mimeType: 'audio/mpeg' };
  }
  if (startsWith(bytes, ascii('ftyp'), 4)) {
    const brand = new TextDecoder('latin1').decode(bytes.subarray(8, 12));
    if (brand.startsWith('M4A') || brand === 'isom' || brand === 'mp42') {
      return { family: 'audio', mimeType: 'audio/mp4' };
    }
  }
  if (startsWith(bytes, [0x1a, 0x45, 0xdf, 0xa3])) return { family: 'audio', mimeType: 'audio/webm' };
  if (startsWith(bytes, ascii('%PDF-'))) return { family: 'pdf', mimeType: 'application/pdf' };
  if (looksLikeText(bytes)) return { family: 'text', mimeType: 'text/plain' };
  return { family: 'unknown', mimeType: 'application/octet-stream' };
}

/** Valid UTF-8 without control bytes other than tab, newline and carriage return. */
function looksLikeText(bytes: Uint8Array): boolean {
  if (bytes.length === 0) return false;
  const sample = bytes.subarray(0, 64 * 1024);
  for (const byte of sample) {
    if (byte < 0x09 || (byte > 0x0d && byte < 0x20) || byte === 0x7f) return false;
  }
  try {
    // A sample cut mid-character is not an error: only complain about the bytes we have.
    new TextDecoder('utf-8', { fatal: true }).decode(sample.subarray(0, lastWholeCharacter(sample)));
    return true;
  } catch {
    return false;
  }
}

function lastWholeCharacter(bytes: Uint8Array): number {
  const end = bytes.length;
  for (let back = 1; back <= 3 && end - back >= 0; back += 1) {
    const byte = bytes[end - back] ?? 0;
    if ((byte & 0xc0) === 0xc0) return end - back;
    if ((byte & 0x80) === 0) break;
  }
  return end;
}
