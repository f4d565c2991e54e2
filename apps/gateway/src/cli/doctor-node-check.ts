import { MINIMUM_NODE_VERSION, RECOMMENDED_NODE } from '../../bin/require-node.mjs';
import type { DoctorLine } from './doctor-line.ts';

/**
 * The Node.js running Nexus. A too-old one never gets this far (the `nexus` entry point refuses
 * it first), so this line says which Node runs and whether it is the recommended one.
 */
export function checkNodeVersion(version: string = process.versions.node): DoctorLine {
  const major = Number.parseInt(version, 10);
  const recommendedMajor = Number.parseInt(RECOMMENDED_NODE.replace(/^\D+/, ''), 10);
  if (major >= recommendedMajor) {
    return { status: 'ok', subject: 'node', message: `Node.js ${version} (minimum ${MINIMUM_NODE_VERSION})` };
  }
  return {
    status: 'warn',
    subject: 'node',
    message: `Node.js ${version} runs Nexus (minimum ${MINIMUM_NODE_VERSION}), but ${RECOMMENDED_NODE} is what it is built and tested with`,
    fix: `install ${RECOMMENDED_NODE} (https://nodejs.org/en/download)`,
  };
}
