import { chmodCommand, findLooseModes, tightenModes } from '../data-dir/find-loose-modes.ts';
import type { DoctorLine } from './doctor-line.ts';

/**
 * Whether the data directory is the owner's alone (directories 0700, files 0600): the SQLite
 * stores hold every conversation and person, `web-token` signs in as the owner, and
 * `whatsapp.sqlite` holds the keys of a linked phone. With `fix`, takes the extra bits away.
 */
export async function checkDataPermissions(dataDir: string, options: { fix: boolean }): Promise<DoctorLine> {
  const subject = 'data permissions';
  const loose = await findLooseModes(dataDir);
  if (loose.length === 0) return { status: 'ok', subject, message: `only the owner can read ${dataDir}` };
  const listed = loose
    .slice(0, 5)
    .map((entry) => `${entry.path} (${entry.mode.toString(8).padStart(3, '0')})`)
    .join(', ');
  const more = loose.length > 5 ? ` and ${loose.length - 5} more` : '';
  if (options.fix) {
    try {
      await tightenModes(loose);
    } catch (error) {
      return {
        status: 'fail',
        subject,
        message: `could not change the modes: ${(error as Error).message}`,
        fix: `run \`${chmodCommand(dataDir)}\` as the owner of the files`,
      };
    }
    return { status: 'ok', subject, message: `fixed: other users can no longer read ${listed}${more}` };
  }
  return {
    status: 'warn',
    subject,
    message: `other users can read or change ${listed}${more}`,
    fix: `run \`nexus doctor --fix\` or \`${chmodCommand(dataDir)}\``,
  };
}
