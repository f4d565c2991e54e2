import type { Logger } from '@nexus/protocol';
import { chmodCommand, findLooseModes } from '../data-dir/find-loose-modes.ts';
import { ensurePrivateDirectory } from '../data-dir/private-path.ts';

/** The data directory made private, and files others can read there named in a warning. */
export async function prepareDataDir(dataDir: string, logger: Logger): Promise<void> {
  ensurePrivateDirectory(dataDir);
  const looseModes = await findLooseModes(dataDir);
  if (looseModes.length === 0) return;
  // Not changed behind the operator's back (a backup user may be meant to read them): said loudly.
  logger.warn(
    {
      dataDir,
      paths: looseModes.slice(0, 10).map((entry) => entry.path),
      count: looseModes.length,
    },
    `files in the data directory are readable by other users; run \`nexus doctor --fix\` or \`${chmodCommand(dataDir)}\``,
  );
}
