import { readdir, readFile } from 'node:fs/promises';
import { extname, join, relative, sep } from 'node:path';

export interface StaticFile {
  body: Buffer;
  contentType: string;
  /** Vite puts a content hash in asset names, so they can be cached forever. */
  immutable: boolean;
}

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.webmanifest': 'application/manifest+json',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

/**
 * Loads the built web client into memory once at start: it is small, and serving from memory keeps
 * file-system reads off the request path. Returns an empty map when the client was not built.
 */
export async function loadStaticFiles(directory: string): Promise<Map<string, StaticFile>> {
  const files = new Map<string, StaticFile>();
  let entries: string[];
  try {
    entries = (await readdir(directory, { recursive: true, withFileTypes: true }))
      .filter((entry) => entry.isFile())
      .map((entry) => join(entry.parentPath, entry.name));
  } catch {
    return files;
  }
  for (const path of entries) {
    const urlPath = `/${relative(directory, path).split(sep).join('/')}`;
    files.set(urlPath, {
      body: await readFile(path),
      contentType: CONTENT_TYPES[extname(path)] ?? 'application/octet-stream',
      immutable: urlPath.startsWith('/assets/'),
    });
  }
  return files;
}
