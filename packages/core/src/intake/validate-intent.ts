import { type IntakeResult, type Intent, type IntentInput, intentSchema } from '@nexus/protocol';

/** Validate: the first intake step. A bad intent is refused with the first field at fault. */
export function validateIntent(input: IntentInput): Intent | IntakeResult {
  const parsed = intentSchema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const field = issue && issue.path.length > 0 ? issue.path.join('.') : 'intent';
  return { status: 'rejected', code: 'invalid_intent', message: `${field}: ${issue?.message ?? 'invalid'}` };
}
