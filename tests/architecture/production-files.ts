import { type Dirent, readdirSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

/** The repository root, as an absolute path. */
export const REPOSITORY_ROOT = new URL('../../', import.meta.url).pathname;

/**
 * Production sources: every `.ts`/`.tsx` file under `packages/*\/src` and `apps/*\/src`, without
 * tests and test helpers. Test helpers have one home, a `testing/` folder (exported as `./testing`
 * when another workspace uses them, e.g. the contract suites), plus the testkit package; nothing
 * else is excluded, so a helper kept anywhere else counts as production code.
 * Paths are relative to the repository root, with `/`.
 */
export function productionFiles(): string[] {
  const found: string[] = [];
  for (const group of ['packages', 'apps']) {
    for (const workspace of readdirSync(join(REPOSITORY_ROOT, group), { withFileTypes: true })) {
      if (!workspace.isDirectory() || (group === 'packages' && workspace.name === 'testkit')) continue;
      const source = join(REPOSITORY_ROOT, group, workspace.name, 'src');
      let entries: Dirent[];
      try {
        entries = readdirSync(source, { recursive: true, withFileTypes: true });
      } catch {
        continue;
      }
      for (const entry of entries) {
        if (!entry.isFile() || !/\.tsx?$/.test(entry.name) || /\.test\.tsx?$/.test(entry.name)) continue;
        const path = relative(REPOSITORY_ROOT, join(entry.parentPath, entry.name)).split(sep).join('/');
        if (/\/(node_modules|testing)\//.test(path)) continue;
        found.push(path);
      }
    }
  }
  return found.sort();
}
