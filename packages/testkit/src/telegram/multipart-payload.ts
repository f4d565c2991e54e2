/** A file a bot uploaded with multipart/form-data, as the fake Bot API received it. */
export interface UploadedFile {
  fileName: string;
  bytes: Uint8Array;
}

/**
 * Reads a multipart/form-data Bot API request the way Telegram does: plain fields are strings,
 * JSON-serialised objects (reply_parameters, …) are parsed, and a field whose value is
 * `attach://<name>` is replaced by the file uploaded in the part called `<name>`.
 */
export async function readMultipartPayload(
  body: Buffer,
  contentType: string,
): Promise<Record<string, unknown>> {
  const form = await new Response(new Uint8Array(body), {
    headers: { 'content-type': contentType },
  }).formData();
  const files = new Map<string, UploadedFile>();
  const fields: Record<string, unknown> = {};
  for (const [name, value] of form.entries()) {
    if (typeof value === 'string') {
      fields[name] = parseField(value);
    } else {
      files.set(name, { fileName: value.name, bytes: new Uint8Array(await value.arrayBuffer()) });
    }
  }
  for (const [name, value] of Object.entries(fields)) {
    if (typeof value === 'string' && value.startsWith('attach://')) {
      const file = files.get(value.slice('attach://'.length));
      if (file) fields[name] = file;
    }
  }
  // A file sent directly under the parameter's own name is accepted too.
  for (const [name, file] of files) if (!(name in fields)) fields[name] = file;
  return fields;
}

export function isUploadedFile(value: unknown): value is UploadedFile {
  return typeof value === 'object' && value !== null && 'bytes' in value && 'fileName' in value;
}

function parseField(value: string): unknown {
  if (!value.startsWith('{') && !value.startsWith('[')) return value;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return value;
  }
}
