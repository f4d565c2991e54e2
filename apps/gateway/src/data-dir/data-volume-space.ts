import { statfs } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';

/** Under this much free space SQLite's next write fails with "database or disk is full". */
export const FULL_BELOW_BYTES = 16 * 1024 * 1024;

const MIB = 1024 * 1024;

export interface DataVolumeSpace {
  /** `low`: below NEXUS_DATA_MIN_FREE_MB; `full`: below FULL_BELOW_BYTES. */
  status: 'ok' | 'low' | 'full';
  availableBytes: number;
  totalBytes: number;
  detail: string;
}

/**
 * How much room the volume holding the data directory has left (statfs, as an unprivileged
 * process may use it). The inbox, sessions, memory and Redis's append-only file all stop when it
 * is full, and then the only symptom used to be refused messages: this is what says why.
 * A data directory not made yet is measured at its nearest existing parent.
 */
export async function dataVolumeSpace(dataDir: string, minFreeMb: number): Promise<DataVolumeSpace> {
  let path = resolve(dataDir);
  for (;;) {
    try {
      const stats = await statfs(path);
      return classifySpace(stats.bavail * stats.bsize, stats.blocks * stats.bsize, minFreeMb);
    } catch (error) {
      const parent = dirname(path);
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || parent === path) throw error;
      path = parent;
    }
  }
}

/** The status for `availableBytes` of `totalBytes` free, with an operator's words for it. */
export function classifySpace(
  availableBytes: number,
  totalBytes: number,
  minFreeMb: number,
): DataVolumeSpace {
  const free = `${formatBytes(availableBytes)} free of ${formatBytes(totalBytes)}`;
  if (availableBytes < FULL_BELOW_BYTES) {
    return {
      status: 'full',
      availableBytes,
      totalBytes,
      detail: `data volume full (${free}): messages cannot be stored; free space or grow the volume`,
    };
  }
  if (availableBytes < minFreeMb * MIB) {
    return {
      status: 'low',
      availableBytes,
      totalBytes,
      detail: `data volume nearly full (${free}, below NEXUS_DATA_MIN_FREE_MB=${minFreeMb}); free space or grow the volume before it fills`,
    };
  }
  return { status: 'ok', availableBytes, totalBytes, detail: free };
}

function formatBytes(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${unit === 0 ? value : value.toFixed(1)} ${units[unit]}`;
}
