import { oggCrc32 } from './crc32.ts';

/**
 * A voice note as Telegram and WhatsApp send it: an Ogg container with an Opus stream
 * (RFC 7845: `OpusHead`, `OpusTags`, then audio packets). No Opus encoder is available offline
 * in npm here, so the audio packets are Opus "silence" frames (TOC byte 0xf8: CELT, 20 ms,
 * one frame, followed by the shortest valid payload); the container, its page CRCs and the
 * headers are real, which is what a transcriber's decoder checks first.
 */
export function makeOggOpusVoiceNote(seconds = 1): Uint8Array {
  const serial = 0x4e455855;
  const head = Buffer.alloc(19);
  head.write('OpusHead', 0, 'latin1');
  head.writeUInt8(1, 8); // version
  head.writeUInt8(1, 9); // mono
  head.writeUInt16LE(312, 10); // pre-skip
  head.writeUInt32LE(48_000, 12); // input sample rate
  head.writeInt16LE(0, 16); // gain
  head.writeUInt8(0, 18); // channel mapping family
  const vendor = Buffer.from('nexus-testkit', 'latin1');
  const tags = Buffer.alloc(8 + 4 + vendor.length + 4);
  tags.write('OpusTags', 0, 'latin1');
  tags.writeUInt32LE(vendor.length, 8);
  vendor.copy(tags, 12);
  tags.writeUInt32LE(0, 12 + vendor.length);
  const frames = Math.max(1, Math.round(seconds * 50));
  const packets = Array.from({ length: frames }, () => Buffer.from([0xf8, 0xff, 0xfe]));
  return Buffer.concat([
    oggPage({ serial, sequence: 0, granule: 0n, flags: 0x02, packets: [head] }),
    oggPage({ serial, sequence: 1, granule: 0n, flags: 0, packets: [tags] }),
    oggPage({ serial, sequence: 2, granule: BigInt(frames * 960), flags: 0x04, packets }),
  ]);
}

interface PageOptions {
  serial: number;
  sequence: number;
  granule: bigint;
  flags: number;
  packets: Buffer[];
}

function oggPage(options: PageOptions): Buffer {
  const lacing: number[] = [];
  for (const packet of options.packets) {
    let left = packet.length;
    while (left >= 255) {
      lacing.push(255);
      left -= 255;
    }
    lacing.push(left);
  }
  const header = Buffer.alloc(27 + lacing.length);
  header.write('OggS', 0, 'latin1');
  header.writeUInt8(0, 4);
  header.writeUInt8(options.flags, 5);
  header.writeBigUInt64LE(options.granule, 6);
  header.writeUInt32LE(options.serial, 14);
  header.writeUInt32LE(options.sequence, 18);
  header.writeUInt32LE(0, 22);
  header.writeUInt8(lacing.length, 26);
  header.set(lacing, 27);
  const page = Buffer.concat([header, ...options.packets]);
  page.writeUInt32LE(oggCrc32(page), 22);
  return page;
}
