import type { ToolSet } from 'ai';

/** Whether the set has a tool, without listing its names (`Object.keys` made an array per run). */
export function hasAnyTool(tools: ToolSet): boolean {
  for (const _name in tools) return true;
  return false;
}
