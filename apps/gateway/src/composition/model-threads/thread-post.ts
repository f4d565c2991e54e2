/**
 * postMessage for model calls, with the one value they can carry that a structured clone refuses:
 * a `URL` (a file part of a prompt or of a response may point at one). The common message goes
 * as is; only one the clone refuses is walked, its URLs tagged, and sent as `{ tagged }`, which
 * `receiveMessage` walks back. So no call pays a walk of its prompt for the rare URL.
 */
export interface MessageTarget {
  postMessage(message: unknown): void;
}

const URL_TAG = 'nexusThreadUrl';

export function postMessageTo(target: MessageTarget, message: unknown): void {
  try {
    target.postMessage(message);
  } catch (error) {
    if (!(error instanceof DOMException && error.name === 'DataCloneError')) throw error;
    target.postMessage({ tagged: tagUrls(message) });
  }
}

/** The message as it was sent: `{ tagged }` walked back, anything else as received. */
export function receiveMessage(data: unknown): unknown {
  if (typeof data === 'object' && data !== null && !Array.isArray(data) && 'tagged' in data)
    return untagUrls((data as { tagged: unknown }).tagged);
  return data;
}

function tagUrls(value: unknown): unknown {
  if (value instanceof URL) return { [URL_TAG]: value.href };
  if (typeof value === 'function' || typeof value === 'symbol') return undefined;
  if (Array.isArray(value)) return value.map(tagUrls);
  if (!isPlainObject(value)) return value;
  const copy: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) copy[key] = tagUrls(field);
  return copy;
}

function untagUrls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(untagUrls);
  if (!isPlainObject(value)) return value;
  const tag = (value as Record<string, unknown>)[URL_TAG];
  if (typeof tag === 'string' && Object.keys(value).length === 1) return new URL(tag);
  const copy: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) copy[key] = untagUrls(field);
  return copy;
}

function isPlainObject(value: unknown): value is object {
  if (typeof value !== 'object' || value === null) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}
