// The Node.js version check that runs before anything else of Nexus loads. Plain JavaScript with
// no imports newer than Node 18, so that a too-old Node prints one clear line instead of a
// SyntaxError from a later import (Node 20 has no `enableCompileCache`; Node 22 before 22.18
// cannot run `.ts` files without a flag).
//
// The minimum is stated here once; package.json `engines`, the README, `nexus doctor` and the
// Dockerfile are checked against it by tests/architecture/node-minimum.test.ts.

/** The lowest Node.js that runs Nexus: type stripping is on by default from 22.18.0. */
export const MINIMUM_NODE_VERSION = '22.18.0';
/** The version we build, test and ship the image with. */
export const RECOMMENDED_NODE = 'Node.js 24 LTS';
/** Exit code of a start refused for an unsupported Node (78 is taken by configuration errors). */
export const EXIT_NODE_TOO_OLD = 79;

/** `-1`, `0` or `1` as `a` is older than, equal to or newer than `b` ("22.18.0" style). */
export function compareVersions(a, b) {
  const left = a.split('.').map((part) => Number.parseInt(part, 10) || 0);
  const right = b.split('.').map((part) => Number.parseInt(part, 10) || 0);
  for (let index = 0; index < 3; index += 1) {
    const difference = (left[index] ?? 0) - (right[index] ?? 0);
    if (difference !== 0) return difference < 0 ? -1 : 1;
  }
  return 0;
}

/** The one line to print when `version` cannot run Nexus, or undefined when it can. */
export function nodeVersionProblem(version, executable = 'node') {
  if (compareVersions(version, MINIMUM_NODE_VERSION) >= 0) return undefined;
  return (
    `Nexus needs Node.js ${MINIMUM_NODE_VERSION} or newer, but ${executable} is Node.js ${version}. ` +
    `Install ${RECOMMENDED_NODE} (https://nodejs.org/en/download, or \`nvm install 24\`) and run it again.`
  );
}

/** Exits the process with one line on standard error when this Node cannot run Nexus. */
export function requireSupportedNode() {
  const problem = nodeVersionProblem(process.versions.node, process.execPath);
  if (problem === undefined) return;
  process.stderr.write(`${problem}\n`);
  process.exit(EXIT_NODE_TOO_OLD);
}

// `node apps/gateway/bin/require-node.mjs`: the same check as a command, run first by `pnpm start`
// and `pnpm test`.
if (process.argv[1] && /require-node\.mjs$/.test(process.argv[1])) requireSupportedNode();
