import type { z } from 'zod';

export type ParsedModelJson<T> = { success: true; value: T } | { success: false; error: string };

/**
 * Reads a JSON answer from a model: tolerates a Markdown code fence and prose around the object,
 * then validates it with the schema. The error says what was wrong, for the retry prompt and the
 * reason a job is parked with.
 */
export function parseModelJson<T>(text: string, schema: z.ZodType<T>): ParsedModelJson<T> {
  const candidate = jsonCandidate(text);
  if (candidate === undefined) return { success: false, error: 'the answer holds no JSON object' };
  let raw: unknown;
  try {
    raw = JSON.parse(candidate);
  } catch (error) {
    return { success: false, error: `the answer is not valid JSON (${(error as Error).message})` };
  }
  const parsed = schema.safeParse(raw);
  if (parsed.success) return { success: true, value: parsed.data };
  const issue = parsed.error.issues[0];
  const where = issue && issue.path.length > 0 ? issue.path.join('.') : 'answer';
  return { success: false, error: `${where}: ${issue?.message ?? 'does not match the expected shape'}` };
}

function jsonCandidate(text: string): string | undefined {
  const fenced = /```(?:json|JSON)?\s*\n?([\s\S]*?)```/u.exec(text);
  const body = (fenced?.[1] ?? text).trim();
  if (body.startsWith('{') || body.startsWith('[')) return body;
  const start = body.indexOf('{');
  const end = body.lastIndexOf('}');
  return start >= 0 && end > start ? body.slice(start, end + 1) : undefined;
}
