import { isUtf8 } from 'node:buffer';
import { type ClientFrame, clientFrameSchema, type ErrorCode } from '@nexus/protocol';
import type { RawData } from 'ws';

export type ParsedClientFrame =
  | { ok: true; frame: ClientFrame }
  | { ok: false; code: ErrorCode; message: string };

const KNOWN_TYPES: ReadonlySet<string> = new Set(
  clientFrameSchema.options.map((option) => option.shape.type.value),
);
const MAX_DETAIL_CHARS = 200;

function toBuffer(data: RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.from(data);
}

function rejected(code: ErrorCode, message: string): ParsedClientFrame {
  return { ok: false, code, message };
}

/**
 * Turns one inbound web-socket message into a validated client frame, or into the error the
 * client should get. Never throws: hostile input must cost one error frame, not the connection.
 * The input is never echoed back.
 */
export function parseClientFrame(data: RawData, isBinary: boolean): ParsedClientFrame {
  if (isBinary) return rejected('bad_frame', 'binary frames are not accepted; send JSON text frames');
  const bytes = toBuffer(data);
  // ws runs with skipUTF8Validation so that bad text costs an error frame instead of a 1007 close.
  if (!isUtf8(bytes)) return rejected('bad_frame', 'frame is not valid UTF-8');
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString('utf8'));
  } catch {
    return rejected('bad_frame', 'frame is not valid JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return rejected('bad_frame', 'a frame is a JSON object with a string "type"');
  }
  const type: unknown = (value as { type?: unknown }).type;
  if (typeof type !== 'string') return rejected('bad_frame', 'a frame is a JSON object with a string "type"');
  if (!KNOWN_TYPES.has(type)) {
    return rejected('unknown_frame', `unknown frame type; expected one of ${[...KNOWN_TYPES].join(', ')}`);
  }
  const result = clientFrameSchema.safeParse(value);
  if (result.success) return { ok: true, frame: result.data };
  const issue = result.error.issues[0];
  const where = issue === undefined || issue.path.length === 0 ? type : `${type}.${issue.path.join('.')}`;
  const detail = `${where}: ${issue?.message ?? 'invalid'}`.slice(0, MAX_DETAIL_CHARS);
  return rejected('bad_frame', detail);
}
