import { dataVolumeSpace } from '../data-dir/data-volume-space.ts';
import type { DoctorLine } from './doctor-line.ts';

/** Whether the data directory's volume has room: full stops every store, nearly full soon will. */
export async function checkDataVolume(dataDir: string, minFreeMb: number): Promise<DoctorLine> {
  const subject = 'data volume';
  let space: Awaited<ReturnType<typeof dataVolumeSpace>>;
  try {
    space = await dataVolumeSpace(dataDir, minFreeMb);
  } catch (error) {
    return { status: 'warn', subject, message: `cannot measure ${dataDir}: ${(error as Error).message}` };
  }
  if (space.status === 'ok') return { status: 'ok', subject, message: `${space.detail} at ${dataDir}` };
  return {
    status: space.status === 'full' ? 'fail' : 'warn',
    subject,
    message: `${space.detail.split('; ')[0]} at ${dataDir}`,
    fix: `delete what is not needed on that volume or grow it${space.status === 'low' ? ' (or lower NEXUS_DATA_MIN_FREE_MB)' : ''}; Nexus answers the refused messages once there is room`,
  };
}
