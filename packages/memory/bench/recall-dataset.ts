import type { MemoryCategory, MemorySource } from '../src/index.ts';
import { seededRandom } from '../src/testing/index.ts';
import { DATED_EVENTS, SMALL_TALK, VALUES } from './recall-fillers.ts';
import { TOPICS, type TopicValues } from './recall-topics.ts';

/** One memory as extraction would store it, told in a dated session. */
export interface DatasetFact {
  /** Stable key: questions name their evidence by it (the memory id is known only after ingest). */
  key: string;
  userId: string;
  session: number;
  /** Days after the first session. */
  day: number;
  content: string;
  category: MemoryCategory;
  source: MemorySource;
}

export interface DatasetQuestion {
  userId: string;
  /** The question asked on its own, a paraphrase of the evidence. */
  query: string;
  /** The same question as a follow-up: recent turns of the conversation, then the message. */
  turns: string[];
  message: string;
  /** Keys of the facts that answer it (for an updated fact: only the newest statement). */
  evidence: string[];
  kind: string;
}

export interface RecallDataset {
  facts: DatasetFact[];
  questions: DatasetQuestion[];
  /** Days after the first session at which the questions are asked. */
  askedOnDay: number;
}

/** Sessions are a month apart (30 days), so each falls in its own calendar month of 2025. */
export const FIRST_SESSION = Date.parse('2025-01-06T09:00:00Z');
const SESSION_GAP_DAYS = 30;

const MONTH_NAMES = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

/**
 * A deterministic multi-session data set (the same seed always gives the same one): each person
 * talks in twelve monthly sessions, from which memories are stored as extraction would store
 * them: facts about themselves (some updated later: a move, a new job), look-alikes about other
 * people or things that share the question's words, small talk, and dated events. Each of the
 * person's questions paraphrases its evidence (`recall-topics.ts`) and comes twice: on its own,
 * and as a follow-up whose subject is only in the conversation's recent turns. Dated questions
 * ("what happened at the garage in May?", "…yesterday?") are answered by the memory's date.
 */
export function generateRecallDataset(
  options: { seed?: number; people?: number; sessions?: number } = {},
): RecallDataset {
  const random = seededRandom(options.seed ?? 24);
  const pick = <T>(items: readonly T[], not?: T): T => {
    const pool = not === undefined ? items : items.filter((item) => item !== not);
    return pool[Math.floor(random() * pool.length)] as T;
  };
  const peopleCount = options.people ?? 90;
  const sessions = options.sessions ?? 12;
  const facts: DatasetFact[] = [];
  const questions: DatasetQuestion[] = [];
  const dayOf = (session: number) => session * SESSION_GAP_DAYS;

  for (let person = 0; person < peopleCount; person++) {
    const userId = `bench:person-${person}`;
    let counter = 0;
    const told = (session: number, content: string, category: MemoryCategory, source: MemorySource) => {
      const key = `${person}-${++counter}`;
      facts.push({ key, userId, session, day: dayOf(session), content, category, source });
      return key;
    };
    const early = () => Math.floor(random() * 4);
    const late = () => sessions - 1 - Math.floor(random() * 3);
    const values = drawValues(pick);
    const ask = (
      kind: string,
      evidence: string[],
      query: string,
      followUp: { turns: string[]; message: string },
    ) => questions.push({ userId, query, turns: followUp.turns, message: followUp.message, evidence, kind });

    for (const topic of TOPICS) {
      if (topic.superseded) told(early(), pick(topic.superseded)(values), topic.category, 'user_explicit');
      const key = told(
        topic.late ? late() : early(),
        pick(topic.evidence)(values),
        topic.category,
        'user_explicit',
      );
      for (const lookAlike of topic.lookAlikes)
        told(Math.floor(random() * sessions), lookAlike(values), 'event', 'inferred');
      ask(topic.name, [key], pick(topic.questions)(values), pick(topic.followUps)(values));
    }

    // Dated events: the same kind of visit in several months, each with its own outcome.
    const event = pick(DATED_EVENTS);
    const months = new Set<number>();
    while (months.size < 3) months.add(Math.floor(random() * sessions));
    if (random() < 0.4) months.add(sessions - 1);
    const outcomes = [...event.outcomes].sort(() => random() - 0.5);
    const dated = [...months].slice(-3).map((session, index) => ({
      session,
      key: told(session, `${event.statement} ${outcomes[index % outcomes.length]}`, 'event', 'user_explicit'),
    }));
    const asked = pick(dated);
    const when = asked.session === sessions - 1 ? 'yesterday' : `in ${MONTH_NAMES[monthOf(asked.session)]}`;
    ask('dated', [asked.key], pick(event.questions)(when), {
      turns: [`Thinking back about the ${event.subject} ${when}.`, 'What about it?'],
      message: 'How did it go?',
    });

    for (let session = 0; session < sessions; session++) {
      for (let index = 0; index < 5; index++)
        told(session, pick(SMALL_TALK)(pick(VALUES.things)), 'event', 'inferred');
    }
  }
  return { facts, questions, askedOnDay: dayOf(sessions - 1) + 1 };
}

function monthOf(session: number): number {
  return new Date(FIRST_SESSION + session * SESSION_GAP_DAYS * 86_400_000).getUTCMonth();
}

function drawValues(pick: <T>(items: readonly T[], not?: T) => T): TopicValues {
  const city = pick(VALUES.cities);
  const job = pick(VALUES.jobs);
  const pet = pick(VALUES.pets);
  const sport = pick(VALUES.sports);
  const language = pick(VALUES.languages);
  const drink = pick(VALUES.drinks);
  const newCity = pick(VALUES.cities, city);
  const newJob = pick(VALUES.jobs, job);
  return {
    city,
    newCity,
    otherCity: pick(
      VALUES.cities.filter((name) => name !== newCity),
      city,
    ),
    job,
    newJob,
    otherJob: pick(
      VALUES.jobs.filter((name) => name !== newJob),
      job,
    ),
    pet,
    petName: pick(VALUES.petNames),
    otherPet: pick(VALUES.pets, pet),
    otherPetName: pick(VALUES.petNames),
    sport,
    otherSport: pick(VALUES.sports, sport),
    language,
    otherLanguage: pick(VALUES.languages, language),
    allergen: pick(VALUES.allergens),
    month: pick(MONTH_NAMES),
    partner: pick(VALUES.partners),
    sister: pick(VALUES.sisters),
    sisterJob: pick(VALUES.jobs),
    drink,
    otherDrink: pick(VALUES.drinks, drink),
  };
}

/** Mean over questions of the share of their evidence found in the first `k` results. */
export function recallAtK(
  rankings: ReadonlyArray<{ evidence: readonly string[]; ranked: readonly string[] }>,
  k: number,
): number {
  if (rankings.length === 0) return 0;
  let sum = 0;
  for (const { evidence, ranked } of rankings) {
    const top = new Set(ranked.slice(0, k));
    sum += evidence.filter((key) => top.has(key)).length / evidence.length;
  }
  return sum / rankings.length;
}
