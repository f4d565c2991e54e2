/** Tools a run can be given; a subagent gets a subset of them. */
export type TurnToolName = 'remember' | 'recall' | 'forget' | 'delegate';

/** How subagents run. Every field has a default (`DEFAULT_SUBAGENT_SETTINGS`). */
export interface SubagentSettings {
  /** A subagent's own system prompt. */
  systemPrompt: string;
  /** Levels of subagents below the main run: 2 lets a subagent delegate once more. */
  maxDepth: number;
  /** Wall-clock limit of one subagent run; a late subagent reports that it ran out of time. */
  timeoutMs: number;
  /** Subagents of one run working at the same time; further delegations wait for a slot. */
  maxParallel: number;
  /** Subagents one main run may start in total (all depths), so a loop of delegations ends. */
  maxPerTurn: number;
  /** Memory context of a subagent: smaller than the main run's. */
  memoryTokenBudget: number;
  memoryLimit: number;
  /** Tools a subagent may use (`delegate` only while above the depth limit). */
  tools: TurnToolName[];
}

export const DEFAULT_SUBAGENT_SYSTEM_PROMPT =
  'You are a focused helper working for the Nexus assistant. Do exactly the task you are given and answer with the result only, briefly and completely. You are not talking to the person directly.';

export const DEFAULT_SUBAGENT_SETTINGS: SubagentSettings = {
  systemPrompt: DEFAULT_SUBAGENT_SYSTEM_PROMPT,
  maxDepth: 2,
  timeoutMs: 60_000,
  maxParallel: 3,
  maxPerTurn: 8,
  memoryTokenBudget: 1000,
  memoryLimit: 10,
  tools: ['recall', 'delegate'],
};

export function resolveSubagentSettings(settings: Partial<SubagentSettings>): SubagentSettings {
  const defined = Object.entries(settings).filter(([, value]) => value !== undefined);
  return { ...DEFAULT_SUBAGENT_SETTINGS, ...Object.fromEntries(defined) };
}
