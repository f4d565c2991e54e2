import { GCProfiler, getHeapStatistics } from 'node:v8';

export interface AllocationFigures {
  /** Bytes the JavaScript heap handed out while the meter ran (live or already collected). */
  allocatedBytes: number;
  collections: number;
  /** Time spent in garbage collection (the collector's own measure). */
  gcMs: number;
}

/**
 * Measures this process's heap allocation between `startAllocationMeter()` and `stop()`: V8's
 * GC profiler reports the used heap before and after every collection, so what was allocated
 * is each rise in use between collections plus the last rise up to now.
 */
export function startAllocationMeter(): { stop(): AllocationFigures } {
  const usedAtStart = getHeapStatistics().used_heap_size;
  const profiler = new GCProfiler();
  profiler.start();
  return {
    stop() {
      const statistics = profiler.stop()?.statistics ?? [];
      let previous = usedAtStart;
      let allocatedBytes = 0;
      let gcMs = 0;
      for (const collection of statistics) {
        allocatedBytes += Math.max(0, collection.beforeGC.heapStatistics.usedHeapSize - previous);
        previous = collection.afterGC.heapStatistics.usedHeapSize;
        gcMs += collection.cost / 1000;
      }
      allocatedBytes += Math.max(0, getHeapStatistics().used_heap_size - previous);
      return { allocatedBytes, collections: statistics.length, gcMs };
    },
  };
}

/**
 * Adds up another process's heap allocation from its `--trace-gc-nvp` lines (each collection
 * prints `allocated=<bytes since the previous one>` and `pause=<ms>`); other lines pass through.
 */
export class TraceGcTotals {
  allocatedBytes = 0;
  collections = 0;
  gcMs = 0;
  #partial = '';

  /** Feeds a chunk of the process's stdout; returns the lines that were not GC traces. */
  feed(chunk: string): string {
    const lines = (this.#partial + chunk).split('\n');
    this.#partial = lines.pop() ?? '';
    const passed: string[] = [];
    for (const line of lines) {
      const allocated = /\ballocated=(\d+)/u.exec(line);
      if (!allocated || !line.includes(' gc=')) {
        passed.push(line);
        continue;
      }
      this.allocatedBytes += Number(allocated[1]);
      this.collections += 1;
      this.gcMs += Number(/\bpause=([\d.]+)/u.exec(line)?.[1] ?? 0);
    }
    return passed.length > 0 ? `${passed.join('\n')}\n` : '';
  }

  snapshot(): { allocatedBytes: number; collections: number; gcMs: number } {
    return { allocatedBytes: this.allocatedBytes, collections: this.collections, gcMs: this.gcMs };
  }
}
