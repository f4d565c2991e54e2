import { readFileSync } from 'node:fs';

/** One turn of a LoCoMo conversation, as the protocol stores it: one memory. */
export interface LocomoTurn {
  /** LoCoMo's turn id, e.g. `D3:12` (session 3, turn 12). */
  diaId: string;
  /** The LoCoMo session, e.g. `locomo-26:session_3`. */
  sessionId: string;
  /** `"<speaker>: <text>"`, then the image's caption when the turn shared one. */
  content: string;
  /** The session's date (epoch ms, UTC). */
  createdAt: number;
}

export interface LocomoQuestion {
  question: string;
  /** Evidence turn ids that name a turn of the conversation. */
  evidence: string[];
  /** 1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop (5, adversarial, is left out). */
  category: 1 | 2 | 3 | 4;
}

export interface LocomoConversation {
  /** The person the conversation is stored for: `locomo-<sample_id>`. */
  userId: string;
  turns: LocomoTurn[];
  questions: LocomoQuestion[];
  /** Evidence ids of category 1–4 questions that name no turn of the conversation (left out). */
  unknownEvidence: number;
}

interface RawTurn {
  speaker: string;
  dia_id: string;
  text: string;
  blip_caption?: string;
}

interface RawSample {
  sample_id: string;
  conversation: Record<string, unknown>;
  qa: Array<{ question: string; evidence?: string[]; category: number }>;
}

const MONTHS = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
];

/** "1:56 pm on 8 May, 2023" → epoch ms (UTC). */
export function parseLocomoDate(text: string): number {
  const match = /^(\d{1,2}):(\d{2})\s*(am|pm)\s+on\s+(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})$/iu.exec(
    text.trim(),
  );
  const month = MONTHS.indexOf(match?.[5]?.toLowerCase() ?? '');
  if (!match || month < 0) throw new Error(`LoCoMo: cannot read the session date "${text}"`);
  const hour = (Number(match[1]) % 12) + (match[3]?.toLowerCase() === 'pm' ? 12 : 0);
  return Date.UTC(Number(match[6]), month, Number(match[4]), hour, Number(match[2]));
}

/**
 * LoCoMo's file (`data/locomo10.json`'s shape) as the recall protocol stores and asks it: every
 * turn one memory of the conversation's person, dated by its session; category 1–4 questions.
 * Evidence ids are split where the data joins several in one string ("D8:6; D9:17").
 */
export function readLocomo(path: string): LocomoConversation[] {
  const samples = JSON.parse(readFileSync(path, 'utf8')) as RawSample[];
  if (!Array.isArray(samples)) throw new Error(`LoCoMo: ${path} is not a list of conversations`);
  return samples.map((sample) => {
    const userId = `locomo-${sample.sample_id}`;
    const turns: LocomoTurn[] = [];
    const sessions = Object.keys(sample.conversation)
      .map((key) => /^session_(\d+)$/u.exec(key)?.[1])
      .filter((number): number is string => number !== undefined)
      .sort((left, right) => Number(left) - Number(right));
    for (const number of sessions) {
      const date = sample.conversation[`session_${number}_date_time`];
      const raw = sample.conversation[`session_${number}`] as RawTurn[];
      if (typeof date !== 'string' || !Array.isArray(raw)) continue;
      const createdAt = parseLocomoDate(date);
      for (const turn of raw) {
        const caption = turn.blip_caption ? ` [shares ${turn.blip_caption}]` : '';
        turns.push({
          diaId: turn.dia_id,
          sessionId: `${userId}:session_${number}`,
          content: `${turn.speaker}: ${turn.text}${caption}`.slice(0, 4_000),
          createdAt,
        });
      }
    }
    const known = new Set(turns.map((turn) => turn.diaId));
    let unknownEvidence = 0;
    const questions: LocomoQuestion[] = [];
    for (const qa of sample.qa) {
      if (qa.category < 1 || qa.category > 4) continue;
      const ids = (qa.evidence ?? []).flatMap((entry) => entry.split(/[;,\s]+/u)).filter(Boolean);
      const evidence = [...new Set(ids.filter((id) => known.has(id)))];
      unknownEvidence += new Set(ids).size - evidence.length;
      if (evidence.length === 0) continue;
      questions.push({
        question: qa.question,
        evidence,
        category: qa.category as LocomoQuestion['category'],
      });
    }
    return { userId, turns, questions, unknownEvidence };
  });
}
