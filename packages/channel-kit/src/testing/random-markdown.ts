import { seededRandom } from '@nexus/testkit';

export { seededRandom };

const WORDS = [
  'the',
  'assistant',
  'remembers',
  'you',
  'a',
  'Telegram',
  'message',
  '<b>',
  'x < y',
  'a & b',
  'C++',
  '**bold**',
  '*it*',
  '_under_',
  '~~gone~~',
  '`code`',
  '[link](https://example.com/a?b=1&c=2)',
  '[bad](javascript:alert(1))',
  '<script>',
  '@everyone',
  '<@123456>',
  '<@&987>',
  'émoji😀',
  '👍🏽',
  'https://example.org/path',
  'supercalifragilisticexpialidocious',
  '#hash',
  '> quote',
  '|table|',
  '\\*',
  'use ``` here',
  '~~~tilde',
  '</pre>',
  '&amp;',
  '"quoted"',
];

function pick<T>(random: () => number, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)] as T;
}

function sentence(random: () => number): string {
  const count = 1 + Math.floor(random() * 14);
  const words = Array.from({ length: count }, () => pick(random, WORDS));
  return `${words.join(' ')}${pick(random, ['.', '!', '?', '', ':'])}`;
}

/** Random Markdown with the constructs models produce: paragraphs, lists, headings, quotes, fences. */
export function randomMarkdown(random: () => number): string {
  const blocks: string[] = [];
  const count = 1 + Math.floor(random() * 10);
  for (let index = 0; index < count; index += 1) {
    const kind = random();
    if (kind < 0.3) {
      // Starts with a plain word: a paragraph opening with "~~~" would be a fence line.
      const sentences = Array.from({ length: 1 + Math.floor(random() * 5) }, () => sentence(random));
      blocks.push(`Note: ${sentences.join(' ')}`);
    } else if (kind < 0.45) {
      blocks.push(
        Array.from({ length: 1 + Math.floor(random() * 6) }, () => `- ${sentence(random)}`).join('\n'),
      );
    } else if (kind < 0.5) {
      blocks.push(`${'#'.repeat(1 + Math.floor(random() * 3))} ${sentence(random)}`);
    } else if (kind < 0.55) {
      blocks.push(`> ${sentence(random)}\n> ${sentence(random)}`);
    } else if (kind < 0.6) {
      blocks.push('x'.repeat(50 + Math.floor(random() * 400)));
    } else {
      const marker = pick(random, ['```', '```', '~~~', '````']);
      const info = pick(random, ['', 'ts', 'python', 'html', 'sh']);
      const lines = Array.from({ length: 1 + Math.floor(random() * 30) }, () => {
        const roll = random();
        if (roll < 0.1) return '';
        if (roll < 0.15) return 'y'.repeat(80 + Math.floor(random() * 300));
        if (roll < 0.2 && marker === '````') return '```inner';
        return `${'  '.repeat(Math.floor(random() * 3))}${sentence(random)}`;
      });
      const closed = random() < 0.9;
      blocks.push(`${marker}${info}\n${lines.join('\n')}${closed ? `\n${marker}` : ''}`);
      if (!closed) break;
    }
  }
  return blocks.join(random() < 0.8 ? '\n\n' : '\n');
}
