import { parseFenceLines } from './fence-lines.ts';

/** True when every fenced code block that is opened is also closed (a split chunk renders as code). */
export function hasBalancedFences(text: string): boolean {
  const lines = parseFenceLines(text);
  const last = lines[lines.length - 1];
  return !last || last.role === 'text' || last.role === 'close';
}
