/** Values, small talk and dated events of the recall data set (see recall-dataset.ts). */
export const VALUES = {
  cities: ['Lisbon', 'Porto', 'Kyoto', 'Berlin', 'Nairobi', 'Toronto', 'Lima', 'Oslo', 'Madrid', 'Dublin'],
  jobs: [
    'nurse',
    'teacher',
    'carpenter',
    'pilot',
    'accountant',
    'chef',
    'architect',
    'librarian',
    'plumber',
    'pharmacist',
  ],
  pets: ['dog', 'cat', 'parrot', 'rabbit', 'tortoise', 'hamster'],
  petNames: ['Miso', 'Rex', 'Pixel', 'Olive', 'Biscuit', 'Nori', 'Pepper', 'Mango', 'Luna'],
  sports: ['tennis', 'football', 'volleyball', 'badminton', 'basketball', 'hockey', 'rugby'],
  languages: ['Japanese', 'Spanish', 'Dutch', 'Swahili', 'Portuguese', 'Korean', 'Italian', 'Greek'],
  allergens: ['peanuts', 'shellfish', 'cats', 'pollen', 'penicillin', 'sesame', 'gluten'],
  partners: ['Sam', 'Alex', 'Robin', 'Kim', 'Noor', 'Jules', 'Chris', 'Dana'],
  sisters: ['Maya', 'Ines', 'Clara', 'Yuki', 'Amara', 'Lena', 'Sofia'],
  drinks: ['green tea', 'black coffee', 'matcha', 'espresso', 'hot chocolate', 'rooibos', 'orange juice'],
  things: [
    'museums',
    'food',
    'parks',
    'coffee',
    'nightlife',
    'weather',
    'trains',
    'schools',
    'music',
    'work',
    'money',
    'sleep',
  ],
} as const;

/**
 * Small talk: what people ask in passing. It shares common words with the questions ("what",
 * "my", "work", "day", "name") and answers none of them: what a careless lexical search
 * returns first.
 */
export const SMALL_TALK: ReadonlyArray<(thing: string) => string> = [
  (thing) => `Asked which city has the best ${thing} now`,
  (thing) => `Asked where to live for good ${thing}`,
  (thing) => `Asked what a job in ${thing} pays these days`,
  (thing) => `Asked what to drink with ${thing} in the morning`,
  (thing) => `Asked what name to give a blog about ${thing}`,
  (thing) => `Asked which sport fans like ${thing} on weekends`,
  (thing) => `Asked which language guides about ${thing} are written in`,
  (thing) => `Asked how to start the day with less ${thing} stress`,
  (thing) => `Asked about a gift related to ${thing} for a friend`,
  (thing) => `Wanted tips on ${thing} for a short trip`,
  (thing) => `Asked how long a talk about ${thing} should be`,
  (thing) => `Talked about ${thing} with a colleague at work`,
  (thing) => `Read an article about ${thing} and did not like it`,
  (thing) => `Asked what I should know about ${thing} in winter`,
];

/** A kind of visit told several times over the year, each time with a different outcome. */
export interface DatedEvent {
  subject: string;
  statement: string;
  outcomes: readonly string[];
  questions: ReadonlyArray<(when: string) => string>;
}

export const DATED_EVENTS: readonly DatedEvent[] = [
  {
    subject: 'dentist',
    statement: 'Went to the dentist, who',
    outcomes: [
      'found a small cavity',
      'said the teeth look healthy',
      'suggested a softer toothbrush',
      'booked a follow-up cleaning',
    ],
    questions: [
      (when) => `What did the dentist say ${when}?`,
      (when) => `How was my dental check-up ${when}?`,
    ],
  },
  {
    subject: 'garage',
    statement: 'Took the car to the garage:',
    outcomes: [
      'the brakes were replaced',
      'it needed new tyres',
      'the battery was flat',
      'it passed the inspection',
    ],
    questions: [
      (when) => `What happened with my car ${when}?`,
      (when) => `What did the mechanic do ${when}?`,
    ],
  },
  {
    subject: 'doctor',
    statement: 'Saw the doctor about a cough:',
    outcomes: [
      'it was a mild infection',
      'got a prescription for an inhaler',
      'was told to rest for a week',
      'the tests came back clear',
    ],
    questions: [
      (when) => `What did my doctor tell me ${when}?`,
      (when) => `How did the medical appointment go ${when}?`,
    ],
  },
  {
    subject: 'hairdresser',
    statement: 'Had a haircut:',
    outcomes: [
      'went much shorter than usual',
      'tried a new colour',
      'only a trim',
      'the barber cut it too short',
    ],
    questions: [
      (when) => `What did I do with my hair ${when}?`,
      (when) => `How did my haircut turn out ${when}?`,
    ],
  },
];
