// Where a V8 profile's frame comes from, shared by bench/cpu-profile-summary.ts and
// bench/heap-profile-summary.ts: the package a frame's script belongs to, and a short label for
// the frame itself.

export interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}

/** A dependency's script (`…/node_modules/[.pnpm/…/node_modules/]NAME/PATH`): NAME and PATH. */
const PACKAGE_IN_MODULES = /node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?((?:@[^/]+\/)?[^/]+)\/(.*)$/u;
/** One of ours (`…/packages/NAME/PATH` or `…/apps/NAME/PATH`). */
const OURS = /\/(packages|apps)\/([^/]+)\/(.*)$/u;

/** The package of a script: a dependency's name, `packages/core`, a Node.js area, or the URL. */
export function packageOfUrl(url: string): string {
  const dependency = PACKAGE_IN_MODULES.exec(url);
  if (dependency) return dependency[1] as string;
  const ours = OURS.exec(url);
  if (ours) return `${ours[1]}/${ours[2]}`;
  if (url.startsWith('node:internal/webstreams')) return 'node: web streams';
  return url.startsWith('node:') ? url.split('/').slice(0, 2).join('/') : url;
}

/** `function package/file:line`, the line counted from 1. */
export function frameLabel({ functionName, url, lineNumber }: CallFrame): string {
  const dependency = PACKAGE_IN_MODULES.exec(url);
  const ours = OURS.exec(url);
  const where = dependency
    ? `${dependency[1]}/${(dependency[2] as string).split('/').at(-1)}`
    : ours
      ? `${ours[2]}/${(ours[3] as string).replace(/^src\//u, '')}`
      : url;
  return `${functionName || '(anonymous)'} ${where}:${lineNumber + 1}`;
}
