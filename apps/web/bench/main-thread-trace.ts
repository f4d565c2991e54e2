import type { Browser, Page } from 'playwright-core';

/** Main-thread work between two `performance.mark`s of a page, read from a Chromium trace. */
export interface MainThreadWork {
  /** Wall time of the renderer's main-thread tasks that overlap the window. */
  wallMs: number;
  /**
   * Their CPU time (the thread's own clock): what the page itself cost, much less skewed than
   * wall time on a machine whose cores other processes share.
   */
  cpuMs: number;
  longestTaskMs: number;
  longestTaskCpuMs: number;
  tasks: number;
}

interface TraceEvent {
  name: string;
  ph: string;
  pid: number;
  tid: number;
  ts: number;
  dur?: number;
  tdur?: number;
  args?: { name?: string };
}

/**
 * Runs `run` while Chromium traces `page`, then sums the main-thread tasks (`RunTask`) between
 * each pair of marks the page set (`from` → `to`, by name) into `MainThreadWork`.
 */
export async function traceMainThread<T>(
  browser: Browser,
  page: Page,
  run: () => Promise<T>,
  windows: Record<string, [from: string, to: string]>,
): Promise<{ result: T; work: Record<string, MainThreadWork> }> {
  await browser.startTracing(page, {
    categories: ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'blink.user_timing'],
  });
  const result = await run();
  const { traceEvents } = JSON.parse((await browser.stopTracing()).toString()) as {
    traceEvents: TraceEvent[];
  };
  const main = traceEvents.find(
    (event) => event.name === 'thread_name' && event.args?.name === 'CrRendererMain',
  );
  if (!main) throw new Error('The trace has no renderer main thread.');
  const tasks = traceEvents.filter(
    (event) =>
      event.pid === main.pid && event.tid === main.tid && event.ph === 'X' && event.name === 'RunTask',
  );
  // The latest of each mark (a trace's events are not in time order).
  const marks = new Map<string, number>();
  for (const event of traceEvents)
    if ((event.ph === 'R' || event.ph === 'I' || event.ph === 'n') && event.ts > (marks.get(event.name) ?? 0))
      marks.set(event.name, event.ts);
  const work: Record<string, MainThreadWork> = {};
  for (const [name, [from, to]] of Object.entries(windows)) {
    const start = marks.get(from);
    const end = marks.get(to);
    if (start === undefined || end === undefined)
      throw new Error(`The trace lacks the mark ${from} or ${to}.`);
    // A task that began before the first mark (the one that set it) still counts.
    const inside = tasks.filter((task) => task.ts + (task.dur ?? 0) > start && task.ts < end);
    const round = (microseconds: number) => Math.round(microseconds / 100) / 10;
    work[name] = {
      wallMs: round(inside.reduce((sum, task) => sum + (task.dur ?? 0), 0)),
      cpuMs: round(inside.reduce((sum, task) => sum + (task.tdur ?? 0), 0)),
      longestTaskMs: round(Math.max(0, ...inside.map((task) => task.dur ?? 0))),
      longestTaskCpuMs: round(Math.max(0, ...inside.map((task) => task.tdur ?? 0))),
      tasks: inside.length,
    };
  }
  return { result, work };
}
