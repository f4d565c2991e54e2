import { readdir, readFile } from 'node:fs/promises';

/** utime + stime of a /proc `stat` line (fields 14 and 15, clock ticks of 10 ms on Linux), in ms. */
function statCpuMs(stat: string): number {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

/** CPU time (user + system) a process has used so far, from /proc (Linux), in milliseconds. */
export async function processCpuMs(pid: number | undefined): Promise<number> {
  return statCpuMs(await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => ''));
}

/**
 * CPU time so far of a process's main thread (its thread id is its pid) and of all its other
 * threads together (V8's workers, libuv's pool), from /proc/<pid>/task (Linux), in milliseconds.
 * Threads that already exited are not counted.
 */
export async function threadCpuMs(
  pid: number | undefined,
): Promise<{ mainThreadMs: number; otherThreadsMs: number }> {
  const tasks = await readdir(`/proc/${pid}/task`).catch(() => [] as string[]);
  let mainThreadMs = Number.NaN;
  let otherThreadsMs = 0;
  for (const task of tasks) {
    const stat = await readFile(`/proc/${pid}/task/${task}/stat`, 'utf8').catch(() => undefined);
    if (stat === undefined) continue;
    if (task === String(pid)) mainThreadMs = statCpuMs(stat);
    else otherThreadsMs += statCpuMs(stat);
  }
  return { mainThreadMs, otherThreadsMs };
}
