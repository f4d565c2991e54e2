import type { MemoryCategory, MemorySource } from '../src/index.ts';
import { seededRandom } from '../src/testing/index.ts';

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
  query: string;
  /** Keys of the facts that answer it (for an updated fact: only the newest statement). */
  evidence: string[];
  kind: 'stable' | 'updated' | 'preference';
}

export interface RecallDataset {
  facts: DatasetFact[];
  questions: DatasetQuestion[];
}

const NAMES = ['ana', 'ben', 'chen', 'dara', 'emil', 'fatou', 'gus', 'hana'];
const CITIES = ['Lisbon', 'Porto', 'Kyoto', 'Berlin', 'Nairobi', 'Toronto', 'Lima', 'Oslo'];
const JOBS = ['nurse', 'teacher', 'carpenter', 'pilot', 'accountant', 'chef', 'architect', 'librarian'];
const DRINKS = ['green tea', 'black coffee', 'matcha', 'espresso', 'hot chocolate', 'rooibos'];
const PETS = ['dog', 'cat', 'parrot', 'rabbit', 'tortoise'];
const PET_NAMES = ['Miso', 'Rex', 'Pixel', 'Olive', 'Biscuit', 'Nori', 'Pepper'];
const SPORTS = ['tennis', 'football', 'volleyball', 'badminton', 'climbing', 'rowing'];
const LANGUAGES = ['Japanese', 'Spanish', 'Dutch', 'Swahili', 'Portuguese', 'Korean'];
const ALLERGENS = ['peanuts', 'shellfish', 'cats', 'pollen', 'penicillin', 'sesame'];
const MONTHS = ['March', 'June', 'August', 'October', 'December'];
const PARTNERS = ['Sam', 'Alex', 'Robin', 'Kim', 'Noor', 'Jules'];
const SMALL_TALK = [
  'Asked about the weather for the weekend',
  'Wanted a recipe for a quick dinner',
  'Watched a documentary about whales',
  'Asked for help writing an email to a landlord',
  'Was tired after a long week',
  'Asked how to fix a slow laptop',
  'Mentioned a podcast about history',
  'Planned to clean the kitchen on Sunday',
  'Asked for a book recommendation about space',
  'Talked about a concert in the park',
  'Had a dentist appointment in the morning',
  'Asked what time the shops close on holidays',
];

const THINGS = ['museums', 'food', 'parks', 'coffee', 'nightlife', 'weather', 'trains', 'schools'];

/**
 * Things people ask in passing that share the words of a later question but say nothing about
 * them: what a careless lexical search returns first. Filled from `THINGS`, so they differ.
 */
const LOOK_ALIKES: ReadonlyArray<(thing: string) => string> = [
  (thing) => `Asked which city has the best ${thing} now`,
  (thing) => `Asked where to live for good ${thing}`,
  (thing) => `Asked what a job in ${thing} pays these days`,
  (thing) => `Asked what to drink with ${thing} in the morning`,
  (thing) => `Asked what name to give a blog about ${thing}`,
  (thing) => `Asked which sport fans like ${thing} on weekends`,
  (thing) => `Asked which language guides about ${thing} are written in`,
  (thing) => `Asked whether people are allergic to ${thing}`,
  (thing) => `Asked about a birthday gift related to ${thing}`,
  (thing) => `Asked what my partner at work thinks about ${thing}`,
  (thing) => `Asked how answers about ${thing} should be checked`,
];

/**
 * A deterministic conversation data set: several people, each with dated sessions in which they
 * state facts (city, job, pet, habits…), some later updated (a move, a new job), plus small talk and
 * look-alike distractors that share the question's words (a friend's city, a sibling's job, a
 * meeting where coffee was served). Every question names the keys of the facts that answer it. The
 * same seed always gives the same data set.
 */
export function generateRecallDataset(options: { seed?: number; people?: number; sessions?: number } = {}) {
  const random = seededRandom(options.seed ?? 14);
  const pick = <T>(items: readonly T[], not?: T): T => {
    const pool = not === undefined ? items : items.filter((item) => item !== not);
    return pool[Math.floor(random() * pool.length)] as T;
  };
  const people = NAMES.slice(0, options.people ?? NAMES.length);
  const sessions = options.sessions ?? 10;
  const facts: DatasetFact[] = [];
  const questions: DatasetQuestion[] = [];

  for (const name of people) {
    const userId = `bench:${name}`;
    let counter = 0;
    const told = (session: number, content: string, category: MemoryCategory, source: MemorySource) => {
      const key = `${name}-${++counter}`;
      facts.push({ key, userId, session, day: session * 6, content, category, source });
      return key;
    };
    const early = () => Math.floor(random() * 2);
    const late = () => sessions - 1 - Math.floor(random() * 2);

    const city = pick(CITIES);
    const newCity = pick(CITIES, city);
    told(early(), `Lives in ${city} with a flatmate`, 'fact', 'user_explicit');
    told(early() + 1, `Has a friend who lives in ${pick(CITIES, city)}`, 'fact', 'inferred');
    const moved = told(late(), `Moved to ${newCity} and lives there now`, 'fact', 'user_explicit');
    questions.push({ userId, query: 'Which city is home for me now?', evidence: [moved], kind: 'updated' });

    const job = pick(JOBS);
    const newJob = pick(JOBS, job);
    told(early(), `Works as a ${job}`, 'fact', 'user_explicit');
    told(early() + 1, `Brother works as a ${pick(JOBS, job)} abroad`, 'fact', 'inferred');
    const jobNow = told(late(), `Started a new job as a ${newJob} this month`, 'event', 'user_explicit');
    questions.push({ userId, query: 'What job do I have these days?', evidence: [jobNow], kind: 'updated' });

    const drink = pick(DRINKS);
    const drinkKey = told(early(), `Prefers ${drink} in the morning`, 'preference', 'user_explicit');
    told(early() + 2, `Had ${pick(DRINKS, drink)} at a morning meeting with a client`, 'event', 'inferred');
    told(early() + 1, `Often orders drinks late in the morning`, 'pattern', 'inferred');
    questions.push({
      userId,
      query: 'What is my usual drink in the morning?',
      evidence: [drinkKey],
      kind: 'preference',
    });

    const pet = pick(PETS);
    const petKey = told(early() + 1, `Has a ${pet} named ${pick(PET_NAMES)}`, 'fact', 'user_explicit');
    told(early() + 2, `Neighbour has a ${pick(PETS, pet)} named ${pick(PET_NAMES)}`, 'fact', 'inferred');
    questions.push({ userId, query: `What name did I give my ${pet}?`, evidence: [petKey], kind: 'stable' });

    const sport = pick(SPORTS);
    const sportKey = told(early(), `Plays ${sport} on weekends`, 'pattern', 'user_explicit');
    told(early() + 2, `Watched ${pick(SPORTS, sport)} on TV last weekend`, 'event', 'inferred');
    questions.push({
      userId,
      query: 'What sport do I play at weekends?',
      evidence: [sportKey],
      kind: 'stable',
    });

    const language = pick(LANGUAGES);
    const languageKey = told(early() + 1, `Is learning ${language} before a trip`, 'fact', 'user_explicit');
    told(late(), `Asked how to say thank you in ${pick(LANGUAGES, language)}`, 'event', 'inferred');
    questions.push({
      userId,
      query: 'Which language am I studying?',
      evidence: [languageKey],
      kind: 'stable',
    });

    const allergen = pick(ALLERGENS);
    const allergyKey = told(early(), `Is allergic to ${allergen}`, 'fact', 'user_explicit');
    questions.push({ userId, query: 'Which allergy do I have?', evidence: [allergyKey], kind: 'stable' });

    const month = pick(MONTHS);
    const birthdayKey = told(early() + 1, `Birthday is in ${month}`, 'fact', 'user_explicit');
    told(late(), `Bought a birthday present for a colleague`, 'event', 'inferred');
    questions.push({
      userId,
      query: 'In which month is my birthday?',
      evidence: [birthdayKey],
      kind: 'stable',
    });

    const partner = pick(PARTNERS);
    const partnerKey = told(early(), `Partner is called ${partner}`, 'fact', 'user_explicit');
    questions.push({
      userId,
      query: 'What is the name of my partner?',
      evidence: [partnerKey],
      kind: 'stable',
    });

    const answers = told(
      early(),
      'Prefers short answers without bullet points',
      'preference',
      'user_explicit',
    );
    told(early() + 1, 'Usually asks for long answers with examples about code', 'pattern', 'inferred');
    questions.push({
      userId,
      query: 'How do I want answers written?',
      evidence: [answers],
      kind: 'preference',
    });

    for (let session = 0; session < sessions; session++) {
      for (let index = 0; index < 3; index++) told(session, pick(SMALL_TALK), 'event', 'inferred');
      for (let index = 0; index < 4; index++)
        told(session, pick(LOOK_ALIKES)(pick(THINGS)), 'event', 'inferred');
    }
  }
  return { facts, questions } satisfies RecallDataset;
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
