import { createSemaphore, type Semaphore } from '../lanes/semaphore.ts';
import type { SubagentSettings } from './subagent-settings.ts';

/** Shared by every subagent of one main run: the parallel limit and the total started. */
export interface SubagentFanOut {
  slots: Semaphore;
  started: number;
}

export function createSubagentFanOut(settings: SubagentSettings): SubagentFanOut {
  return { slots: createSemaphore(settings.maxParallel), started: 0 };
}
