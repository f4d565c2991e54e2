import { withoutUrlCredentials } from './without-url-credentials.ts';

/** One finding of `nexus doctor`: what was checked, what is wrong, and how to fix it. */
export interface DoctorLine {
  status: 'ok' | 'warn' | 'fail';
  subject: string;
  message: string;
  fix?: string;
}

const MARKS: Record<DoctorLine['status'], string> = { ok: '✓', warn: '!', fail: '✗' };

/** One line and its fix; the message (which quotes configured URLs) with no URL's credentials. */
export function formatDoctorLine(line: DoctorLine): string {
  const fix = line.fix ? `\n    fix: ${line.fix}` : '';
  return `${MARKS[line.status]} ${line.subject}: ${withoutUrlCredentials(line.message)}${fix}\n`;
}

/** Why a request failed, in words an operator can act on (the socket error code when there is one). */
export function describeNetworkError(error: unknown): string {
  if (error instanceof DOMException && error.name === 'TimeoutError') return 'no answer within 5 s';
  const cause = (error as { cause?: { code?: string; message?: string } } | undefined)?.cause;
  if (cause?.code) return cause.code;
  return error instanceof Error ? (cause?.message ?? error.message) : String(error);
}
