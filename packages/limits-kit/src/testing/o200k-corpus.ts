/**
 * Text for checking the o200k counter against gpt-tokenizer: written samples of the kinds chat
 * carries, runs long enough to take the heap merge, and seeded random strings that mix scripts,
 * emoji sequences, whitespace of every kind, byte-order marks and lone surrogates.
 */

import { seededRandom } from '@nexus/testkit';

export { seededRandom };

export const WRITTEN_SAMPLES: readonly string[] = [
  'hello world',
  "The quick brown fox jumps over the lazy dog. It's what they've said; we'll see, I'm sure you'd agree.",
  "DON'T SHOUT! They'RE here, it'S fine. O'Neill's café isn't open.",
  'Grüße aus München! Die Straße ist übermäßig lang, aber die Bäckerei öffnet um 7:30 Uhr.',
  'Ünïcödé, 日本語のテキスト, emoji 🎉🧪 and Ελληνικά',
  'Ça va? Où est la bibliothèque? Éléphant, naïve, coöperate, résumé, Ångström, Łódź, Šibenik.',
  '北京欢迎你。我们明天去长城吧！今天天气很好，适合出去玩。',
  'これは日本語の文章です。カタカナとひらがな、そして漢字が混ざっています。',
  '한국어 문장도 있습니다. 안녕하세요!',
  'Привет, как дела? Это русский текст с цифрами 12345 и знаками препинания…',
  'مرحبا بالعالم! هذا نص عربي.',
  'שלום עולם, זה טקסט בעברית.',
  'नमस्ते दुनिया, यह हिंदी पाठ है।',
  'สวัสดีครับ นี่คือข้อความภาษาไทย',
  'Family: 👨‍👩‍👧‍👦, couple: 👩‍❤️‍👨, flags: 🇩🇪🇯🇵🏳️‍🌈, skin tones: 👍🏽👋🏿, keycap: 1️⃣, ♥️ vs ♥',
  '🧑‍💻🧑‍💻🧑‍💻 coding all night 😴😴😴 #devlife @someone',
  'const x = () => { return 42; };\nfunction add(a, b) {\n\treturn a + b;\n}\n',
  'def fib(n):\n    if n < 2:\n        return n\n    return fib(n - 1) + fib(n - 2)\n\n\n',
  '<div class="container">\n  <p id=\'x\'>Hello &amp; welcome</p>\n</div>',
  "SELECT id, name FROM users WHERE created_at > NOW() - INTERVAL '7 days' ORDER BY id DESC;",
  'https://example.com/path/to/page?query=value&other=123#section and http://localhost:8787/ready',
  'mailto:someone@example.org, ftp://files.example.net/pub/file-v1.2.3.tar.gz',
  'Numbers: 1 12 123 1234 12345 123456 3.14159 -2.5e10 1,000,000 ٣٤٥ ١٢ ½ ² Ⅻ',
  'Phone +49 (0)30 1234-5678, IBAN DE89 3704 0044 0532 0130 00, 2024-06-30T12:34:56Z',
  'Whitespace   runs\t\t\tand\u00a0non-breaking\u2003em\u3000ideographic   ',
  'Lines\n\n\nand\r\nwindows\r\n\r\nendings\n',
  '   leading spaces and trailing ones     ',
  '\n\n\n\n',
  '\t \t \t',
  '<|endoftext|> is text here',
  '<|endoftext|><|fim_prefix|><|fim_middle|><|fim_suffix|><|im_start|><|im_end|><|im_sep|><|endofprompt|>',
  'text<|endoftext|>more text <|im_start|>user\nhi<|im_end|>',
  '\uFEFFa byte-order mark, then code: const x = () => { return 42; };',
  '\uFEFF\uFEFF\uFEFFhello \uFEFFworld\uFEFF \uFEFF',
  'lone \uD800 surrogates \uDC00 here\uD83D and \uDE00 there \uDBFF\uDBFF',
  '\uD83D\uDE00\uD83D pair then lone',
  "I'll've y'all'd've 'tis 'twas rock'n'roll",
  'ALLCAPSWORD camelCaseWord PascalCaseWord snake_case_word kebab-case-word SCREAMING_SNAKE',
  '!!!???...---***+++===///\\\\\\|||',
  '// comment\n/* block */\n# hash\n-- dash\n',
  '{"key": "value", "list": [1, 2, 3], "nested": {"a": null, "b": true}}',
  'a\u0301e\u0301i\u0301 combining marks: ñ vs n\u0303, Z\u0351\u0352\u0353a\u0354l\u0355g\u0356o\u0357',
  '𝔘𝔫𝔦𝔠𝔬𝔡𝔢 𝕞𝕒𝕥𝕙 𝐛𝐨𝐥𝐝 𝓈𝒸𝓇𝒾𝓅𝓉',
  '\u0000\u0001\u0002 control \u007f\u0080\u009f characters',
  '\u2028line separator\u2029paragraph separator\u0085next line',
  '',
  ' ',
  'a',
  'é',
  '日',
  '🎉',
];

/** Single characters and short units repeated into long runs (one piece when no space breaks them). */
const RUN_UNITS = [
  'x',
  'a',
  'é',
  'ß',
  '日',
  '🎉',
  ' ',
  '\n',
  '\t',
  '0',
  '.',
  '!',
  'ab',
  'abc',
  'Aa',
  '\uFEFF',
  '\uD800',
  '👨‍👩‍👧',
  ' a',
  '1a',
];
const RUN_LENGTHS = [63, 64, 65, 100, 257, 1000, 4097, 8000];

export function longRuns(): string[] {
  return RUN_UNITS.flatMap((unit) =>
    RUN_LENGTHS.map((length) => unit.repeat(Math.ceil(length / unit.length))),
  );
}

/** Pools the random strings draw from, weighted by how often chat text has them. */
const POOLS: readonly (readonly [weight: number, draw: (random: () => number) => string])[] = [
  [20, (random) => pickChar(random, 'abcdefghijklmnopqrstuvwxyz')],
  [6, (random) => pickChar(random, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ')],
  [4, (random) => pickChar(random, '0123456789')],
  [10, (random) => pickChar(random, ' ')],
  [
    4,
    (random) =>
      pickChar(
        random,
        '\n\r\t\u000b\f\u00a0\u1680\u2000\u2009\u200a\u2028\u2029\u202f\u205f\u3000\uFEFF\u0085',
      ),
  ],
  [6, (random) => pickChar(random, '.,;:!?\'"`~@#$%^&*()[]{}<>-_=+/\\|')],
  [5, (random) => pickChar(random, 'äöüßéèêëàâçñõœæøåÄÖÜÉÀÇÑŒÆØÅłŁžŽšŠ')],
  [3, (random) => pickChar(random, '\u0300\u0301\u0302\u0303\u0308\u0327\u034f\u0489\u20dd')],
  [3, (random) => pickChar(random, 'αβγδεζηθΑΒΓΔабвгдеёжзАБВГДЕЁЖЗ')],
  [3, (random) => pickChar(random, 'عربيةשלוםनमस्तेสวัสดี')],
  [5, (random) => String.fromCodePoint(0x4e00 + Math.floor(random() * 0x5200))],
  [3, (random) => String.fromCodePoint(0x3040 + Math.floor(random() * 0xc0))],
  [2, (random) => String.fromCodePoint(0xac00 + Math.floor(random() * 0x2ba4))],
  [4, (random) => pickEmoji(random)],
  [2, () => '\u200d'],
  [2, (random) => pickChar(random, '\ufe0f\ufe0e')],
  [2, (random) => String.fromCharCode(0xd800 + Math.floor(random() * 0x800))],
  [3, (random) => String.fromCharCode(Math.floor(random() * 0x10000))],
  [2, (random) => String.fromCodePoint(0x10000 + Math.floor(random() * 0x100000))],
  [2, (random) => ["'s", "'T", "'re", "'VE", "'m", "'ll", "'D", "'x"][Math.floor(random() * 8)] as string],
  [
    1,
    (random) =>
      ['<|endoftext|>', '<|im_start|>', '<|im_end|>', '<|fim_prefix|>', '<|'][
        Math.floor(random() * 5)
      ] as string,
  ],
  [1, (random) => ['https://', 'www.', '.com/', '?q=', '&a=', '://'][Math.floor(random() * 6)] as string],
];
const TOTAL_WEIGHT = POOLS.reduce((sum, [weight]) => sum + weight, 0);

const EMOJI = [
  '😀',
  '🎉',
  '👍',
  '👍🏽',
  '❤️',
  '🇩🇪',
  '🏳️‍🌈',
  '👨‍👩‍👧‍👦',
  '🧑‍💻',
  '🤷‍♀️',
  '1️⃣',
  '©',
  '™',
  '🫠',
  '🐈‍⬛',
];

function pickChar(random: () => number, characters: string): string {
  const list = [...characters];
  return list[Math.floor(random() * list.length)] as string;
}

function pickEmoji(random: () => number): string {
  return EMOJI[Math.floor(random() * EMOJI.length)] as string;
}

/** One random string: runs of characters from one pool, so words and scripts form, then switch. */
export function randomText(random: () => number): string {
  const length = Math.floor(random() ** 2 * 400);
  let text = '';
  while (text.length < length) {
    let choice = random() * TOTAL_WEIGHT;
    let pool = POOLS[0] as (typeof POOLS)[number];
    for (const candidate of POOLS) {
      choice -= candidate[0];
      if (choice < 0) {
        pool = candidate;
        break;
      }
    }
    const run = 1 + Math.floor(random() * 8);
    for (let index = 0; index < run; index += 1) text += pool[1](random);
  }
  return text;
}
