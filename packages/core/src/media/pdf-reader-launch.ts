import { existsSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface PdfReaderLaunch {
  execArgv: string[];
  env: NodeJS.ProcessEnv;
}

/**
 * How the PDF reader process starts: with an empty environment (no web token, bot tokens or API
 * keys reach the code that parses a stranger's file; not even NODE_OPTIONS) and under Node's
 * permission model, reading only its own script and the `unpdf` package, writing nothing, and
 * starting no process, worker or addon. The data directory, the secrets and the rest of the
 * file system are out of its reach. `script` is the file forked (a test forks a probe instead).
 */
export function pdfReaderLaunch(script: string, maxHeapMb: number): PdfReaderLaunch {
  const reads = [script, ...unpdfFolders(dirname(script))];
  return {
    execArgv: [
      `--max-old-space-size=${maxHeapMb}`,
      '--permission',
      ...reads.map((path) => `--allow-fs-read=${path}`),
    ],
    env: {},
  };
}

/** `unpdf` as Node resolves it from `from`: the nearest `node_modules/unpdf` and its real folder. */
function unpdfFolders(from: string): string[] {
  for (let folder = from; ; folder = dirname(folder)) {
    const candidate = join(folder, 'node_modules', 'unpdf');
    if (existsSync(candidate)) {
      const real = realpathSync(candidate);
      return real === candidate ? [candidate] : [candidate, real];
    }
    if (dirname(folder) === folder) {
      // Not installed beside the script: the reader will fail to start and say so.
      return [];
    }
  }
}

/** The reader's script, beside this file. */
export const PDF_READER_SCRIPT = fileURLToPath(new URL('./pdf-text-child.ts', import.meta.url));
