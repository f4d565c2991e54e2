import { readFile } from 'node:fs/promises';

export interface WatchChildMemoryOptions {
  pid: number;
  /** Resident size (peak included) past which `onOverBudget` is called once. */
  maxResidentBytes: number;
  onOverBudget: (residentBytes: number) => void;
  /** How often to look; a stream decoding at 1 GB/s overshoots by about this many milliseconds' worth. */
  intervalMs?: number;
}

/**
 * Watches another process's resident memory through Linux's `/proc/<pid>/status`. `VmHWM` is
 * the peak since the process started, so a spike between two looks still counts. Returns a stop
 * function. Where `/proc` does not exist (not Linux) it reports `supported: false` and the
 * caller's other limits (heap size, deadline) are all that hold.
 */
export function watchChildMemory(options: WatchChildMemoryOptions): { stop: () => void; supported: boolean } {
  const path = `/proc/${options.pid}/status`;
  let stopped = false;
  let reading = false;
  const look = async () => {
    if (reading || stopped) return;
    reading = true;
    try {
      const resident = peakResidentBytes(await readFile(path, 'latin1'));
      if (!stopped && resident > options.maxResidentBytes) {
        stopped = true;
        clearInterval(timer);
        options.onOverBudget(resident);
      }
    } catch {
      // The process has just ended: nothing left to watch.
    } finally {
      reading = false;
    }
  };
  const timer = setInterval(look, options.intervalMs ?? 10);
  void look();
  return {
    supported: process.platform === 'linux',
    stop: () => {
      stopped = true;
      clearInterval(timer);
    },
  };
}

function peakResidentBytes(status: string): number {
  const match = /^VmHWM:\s+(\d+) kB/m.exec(status) ?? /^VmRSS:\s+(\d+) kB/m.exec(status);
  return match ? Number(match[1]) * 1024 : 0;
}
