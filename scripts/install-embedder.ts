/**
 * `pnpm embedder:install`: installs the `@nexus/embedder-transformers` add-on (a local embedding
 * model through ONNX Runtime, about 450 MB) that `NEXUS_EMBEDDING_PROVIDER=transformers` needs.
 *
 * The add-on is a dependency of the workspace root only, so the gateway's production closure
 * (`--filter-prod '@nexus/gateway...'`, what the image and `pnpm size` install) leaves it out.
 * A development checkout (full `pnpm install`) has it already. A production install gets it by
 * adding the root's production dependencies to the same filtered install, from the lockfile.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const addon = join(root, 'node_modules', '@nexus', 'embedder-transformers');
const library = join(
  root,
  'packages',
  'embedder-transformers',
  'node_modules',
  '@huggingface',
  'transformers',
);

if (existsSync(addon) && existsSync(library)) {
  console.log('@nexus/embedder-transformers is installed.');
  process.exit(0);
}
// Dev tooling present means a full install: repeat it (the add-on is part of it) rather than
// dropping the dev dependencies with --prod.
const fullInstall = existsSync(join(root, 'node_modules', 'vitest'));
const args = fullInstall
  ? ['install', '--frozen-lockfile']
  : [
      'install',
      '--prod',
      '--frozen-lockfile',
      '--filter-prod',
      '@nexus/gateway...',
      '--filter-prod',
      'nexus...',
    ];
console.log(`pnpm ${args.join(' ')}`);
execFileSync('pnpm', args, { cwd: root, stdio: 'inherit' });
console.log('@nexus/embedder-transformers is installed; set NEXUS_EMBEDDING_PROVIDER=transformers.');
