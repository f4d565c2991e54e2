/**
 * What people of the recall data set tell and ask, one entry per kind of fact. Each entry has
 * several ways the fact is stated (as extraction would store it) and several ways it is asked
 * about later, written independently as people phrase things: most questions share at most a
 * word or a word stem with the statement, some share none. Nothing in Nexus knows these lists
 * (no synonym table mirrors them); a question that shares no word with its evidence can only be
 * found through the conversation's recent turns or the memory's date.
 */
export interface TopicValues {
  city: string;
  newCity: string;
  otherCity: string;
  job: string;
  newJob: string;
  otherJob: string;
  pet: string;
  petName: string;
  otherPet: string;
  otherPetName: string;
  sport: string;
  otherSport: string;
  language: string;
  otherLanguage: string;
  allergen: string;
  month: string;
  partner: string;
  sister: string;
  sisterJob: string;
  drink: string;
  otherDrink: string;
}

export interface Topic {
  name: string;
  /** How the fact is stored; `late` facts are told in the last sessions (they replace `early`). */
  evidence: ReadonlyArray<(values: TopicValues) => string>;
  /** Said earlier, now out of date (a move, a new job): found too, but not evidence. */
  superseded?: ReadonlyArray<(values: TopicValues) => string>;
  /** Things that share the topic's words but are about someone or something else. */
  lookAlikes: ReadonlyArray<(values: TopicValues) => string>;
  /** Standalone questions. */
  questions: ReadonlyArray<(values: TopicValues) => string>;
  /** The same question as a follow-up: the recent turns name the subject, the message does not. */
  followUps: ReadonlyArray<(values: TopicValues) => { turns: string[]; message: string }>;
  category: 'fact' | 'preference' | 'pattern' | 'event';
  /** Told in one of the last sessions (an update), instead of one of the first. */
  late?: boolean;
}

export const TOPICS: readonly Topic[] = [
  {
    name: 'home',
    late: true,
    category: 'fact',
    evidence: [
      (v) => `Moved to ${v.newCity} and lives there now`,
      (v) => `Relocated to ${v.newCity} a few weeks ago`,
      (v) => `Has a new flat in ${v.newCity} since the move`,
    ],
    superseded: [(v) => `Lives in ${v.city} with a flatmate`, (v) => `Rents an apartment in ${v.city}`],
    lookAlikes: [
      (v) => `Best friend lives in ${v.otherCity}`,
      (v) => `Asked which neighbourhoods of ${v.otherCity} are nice to live in`,
    ],
    questions: [
      () => 'Where am I living these days?',
      () => 'Which city is home for me now?',
      () => 'Remind me where I moved to',
      () => 'What town do I live in at the moment?',
    ],
    followUps: [
      () => ({
        turns: ['I have to fill in my new address for the bank.', 'Sure, which part of the form is it?'],
        message: 'The city field. Which one do I put now that I moved?',
      }),
      () => ({
        turns: ['My flatmate situation changed after the move.', 'Oh, how so?'],
        message: 'Never mind that. Remind me where I live now?',
      }),
    ],
  },
  {
    name: 'job',
    late: true,
    category: 'event',
    evidence: [
      (v) => `Started a new job as a ${v.newJob} this month`,
      (v) => `Changed careers and now works as a ${v.newJob}`,
      (v) => `Was hired as a ${v.newJob} recently`,
    ],
    superseded: [(v) => `Works as a ${v.job}`, (v) => `Has been a ${v.job} for years`],
    lookAlikes: [
      (v) => `Brother works as a ${v.otherJob} abroad`,
      (v) => `Asked what a ${v.otherJob} earns on average`,
    ],
    questions: [
      () => 'What do I do for work now?',
      () => 'What is my current job?',
      () => 'What am I working as these days?',
      () => 'Remind me of my profession',
    ],
    followUps: [
      () => ({
        turns: ['I need to write a short bio about my work for a conference.', 'Happy to help with the bio.'],
        message: 'Start with what I do now, what was it again?',
      }),
      () => ({
        turns: ['The new job is tiring so far.', 'Starting somewhere new often is.'],
        message: 'Remind me what the role is called?',
      }),
    ],
  },
  {
    name: 'pet',
    category: 'fact',
    evidence: [
      (v) => `Has a ${v.pet} named ${v.petName}`,
      (v) => `Adopted a ${v.pet} called ${v.petName}`,
      (v) => `Owns a ${v.pet}, ${v.petName}`,
    ],
    lookAlikes: [
      (v) => `Neighbour has a ${v.otherPet} named ${v.otherPetName}`,
      (v) => `Asked what food is safe for a ${v.otherPet}`,
    ],
    questions: [
      (v) => `What is my ${v.pet}'s name?`,
      (v) => `What did I call my ${v.pet}?`,
      () => 'What is the name of my pet?',
      () => 'What is my pet called?',
    ],
    followUps: [
      (v) => ({
        turns: [`I am taking my ${v.pet} to the vet tomorrow.`, 'I hope it is just a check-up.'],
        message: 'They will ask for the name, remind me?',
      }),
      (v) => ({
        turns: [`My ${v.pet} chewed a cable again.`, 'Oh no, is everything alright?'],
        message: 'Yes. What did I name the little troublemaker?',
      }),
    ],
  },
  {
    name: 'sport',
    category: 'pattern',
    evidence: [
      (v) => `Plays ${v.sport} on weekends`,
      (v) => `Is in a ${v.sport} club that meets on Saturdays`,
      (v) => `Has been playing ${v.sport} since school`,
    ],
    lookAlikes: [
      (v) => `Watched ${v.otherSport} on TV last weekend`,
      (v) => `Asked for the rules of ${v.otherSport}`,
    ],
    questions: [
      () => 'What sport am I playing at the weekend?',
      () => 'Which game does my club play on Saturday?',
      () => 'What do I do for exercise?',
      () => 'Which sport have I played since I was at school?',
    ],
    followUps: [
      () => ({
        turns: ['I want new shoes for my weekend sport.', 'Good shoes make a difference.'],
        message: 'Which kind should I buy for it?',
      }),
      () => ({
        turns: ['My club has a tournament coming up.', 'Exciting! Are you ready?'],
        message: 'Remind me which sport it is, I want to tell my boss.',
      }),
    ],
  },
  {
    name: 'language',
    category: 'fact',
    evidence: [
      (v) => `Is learning ${v.language} before a trip`,
      (v) => `Takes ${v.language} lessons twice a week`,
      (v) => `Studies ${v.language} with an app every evening`,
    ],
    lookAlikes: [
      (v) => `Asked how to say thank you in ${v.otherLanguage}`,
      (v) => `Colleague speaks fluent ${v.otherLanguage}`,
    ],
    questions: [
      () => 'Which language am I studying?',
      () => 'What language do I take lessons in?',
      () => 'What language have I been learning?',
      () => 'Which foreign tongue am I practising?',
    ],
    followUps: [
      () => ({
        turns: ['My lessons are going well lately.', 'That is great to hear.'],
        message: 'Can you give me five useful phrases in it?',
      }),
      () => ({
        turns: ['I have my exam next week.', 'Good luck, which exam is it?'],
        message: 'The one for the language I study, which is it again?',
      }),
    ],
  },
  {
    name: 'allergy',
    category: 'fact',
    evidence: [
      (v) => `Is allergic to ${v.allergen}`,
      (v) => `Has a ${v.allergen} allergy`,
      (v) => `Gets ill from ${v.allergen}`,
    ],
    lookAlikes: [() => 'Asked whether hay fever is common in spring'],
    questions: [
      () => 'What am I allergic to?',
      () => 'Which allergy do I have?',
      () => 'What should I avoid because of my allergy?',
      () => 'What makes me ill?',
    ],
    followUps: [
      () => ({
        turns: ['I am ordering dinner from a new place tonight.', 'Nice, what kind of food?'],
        message: 'Anything on the menu I must avoid, given my allergy?',
      }),
      () => ({
        turns: ['The doctor asked about my medical history.', 'That is routine.'],
        message: 'What was I allergic to, again?',
      }),
    ],
  },
  {
    name: 'birthday',
    category: 'fact',
    evidence: [
      (v) => `Birthday is in ${v.month}`,
      (v) => `Was born in ${v.month}`,
      (v) => `Celebrates their birthday every ${v.month}`,
    ],
    lookAlikes: [
      () => 'Bought a birthday present for a colleague',
      () => 'Went to a birthday party of a neighbour',
    ],
    questions: [
      () => 'When is my birthday?',
      () => 'In which month was I born?',
      () => 'When do I turn a year older?',
    ],
    followUps: [
      () => ({
        turns: ['My friends want to plan a party for me.', 'How kind of them!'],
        message: 'Which month should they plan it for?',
      }),
    ],
  },
  {
    name: 'partner',
    category: 'fact',
    evidence: [
      (v) => `Partner is called ${v.partner}`,
      (v) => `Is married to ${v.partner}`,
      (v) => `Lives together with their partner ${v.partner}`,
    ],
    lookAlikes: [() => 'Asked what my business partner thinks about the plan'],
    questions: [
      () => "What is my partner's name?",
      () => 'Who am I married to?',
      () => 'What is my spouse called?',
    ],
    followUps: [
      () => ({
        turns: ['Our anniversary is coming up.', 'Congratulations! Any plans?'],
        message: 'I want to engrave a name on a gift, which name was it?',
      }),
    ],
  },
  {
    name: 'sister',
    category: 'fact',
    evidence: [
      (v) => `Sister ${v.sister} works as a ${v.sisterJob}`,
      (v) => `Has a sister, ${v.sister}, who is a ${v.sisterJob}`,
    ],
    lookAlikes: [(v) => `Asked what a ${v.sisterJob} needs to study`],
    questions: [
      () => 'What does my sister do for a living?',
      () => "What is my sister's job?",
      (v) => `What work does ${v.sister} do?`,
    ],
    followUps: [
      (v) => ({
        turns: [`${v.partner} asked about my family.`, `What did you tell ${v.partner}?`],
        message: 'I forgot. And what about my sister, what is her job?',
      }),
      (v) => ({
        turns: [`${v.sister} is visiting us this weekend.`, 'Lovely, anything planned?'],
        message: 'Yes. What does she do for work again?',
      }),
    ],
  },
  {
    name: 'answers',
    category: 'preference',
    evidence: [
      () => 'Prefers short answers without bullet points',
      () => 'Likes replies kept brief and in plain sentences',
      () => 'Wants concise answers, no lists',
    ],
    lookAlikes: [() => 'Asked for long answers with code examples once'],
    questions: [
      () => 'How should you write your replies to me?',
      () => 'What kind of answers do I like?',
      () => 'How long should your responses be?',
    ],
    followUps: [
      () => ({
        turns: ['Your last message was a bit much.', 'Sorry about that.'],
        message: 'Do you remember how I like it?',
      }),
    ],
  },
  {
    name: 'drink',
    category: 'preference',
    evidence: [
      (v) => `Prefers ${v.drink} in the morning`,
      (v) => `Starts every day with ${v.drink}`,
      (v) => `Drinks ${v.drink} at breakfast`,
    ],
    lookAlikes: [
      (v) => `Had ${v.otherDrink} at a morning meeting with a client`,
      () => 'Often orders drinks late in the morning',
    ],
    questions: [
      () => 'What do I like to drink in the morning?',
      () => 'What is my usual breakfast drink?',
      () => 'How do I start my day?',
    ],
    followUps: [
      () => ({
        turns: ['I am making a shopping list for the week.', 'Sure, what is on it so far?'],
        message: 'Bread and eggs. What do I need for my mornings?',
      }),
    ],
  },
];
