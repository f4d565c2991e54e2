export type TokenKind = 'plain' | 'comment' | 'string' | 'number' | 'keyword' | 'literal';

export interface CodeToken {
  kind: TokenKind;
  text: string;
}

/**
 * Keywords of the languages models write most (JavaScript/TypeScript, Python, Go, Rust, shell,
 * SQL, C-like). One shared set keeps this a few hundred bytes instead of a grammar per language;
 * the cost is the odd word coloured in a language where it is not a keyword.
 */
const keywords = new Set(
  (
    'abstract as async await break case catch class const continue def default defer del do elif else ' +
    'enum export extends fn for from func function go if impl implements import in interface let loop ' +
    'match mod module mut new package pass private protected pub public raise return select static ' +
    'struct switch then throw trait try type typeof use var where while with yield fi done esac echo ' +
    'lambda async def not and or is'
  ).split(' '),
);
const sqlKeywords =
  /^(?:select|from|where|insert|into|update|delete|create|table|join|on|group|order|by|values|set|and|or|not|null|as|limit)$/i;
const literals = new Set([
  'true',
  'false',
  'null',
  'undefined',
  'None',
  'True',
  'False',
  'nil',
  'self',
  'this',
]);
const hashComments = new Set([
  'python',
  'py',
  'sh',
  'bash',
  'shell',
  'zsh',
  'ruby',
  'rb',
  'yaml',
  'yml',
  'toml',
]);

const patterns: Array<[TokenKind | 'word', RegExp]> = [
  ['comment', /\/\/[^\n]*|\/\*[\s\S]*?(?:\*\/|$)|--[^\n]*/y],
  ['string', /"(?:\\[\s\S]|[^"\\\n])*"?|'(?:\\[\s\S]|[^'\\\n])*'?|`(?:\\[\s\S]|[^`\\])*`?/y],
  ['number', /\b(?:0x[\da-f_]+|\d[\d_]*(?:\.\d+)?(?:e[+-]?\d+)?)\b/iy],
  ['word', /[A-Za-z_$][\w$]*/y],
];
const hashComment = /#[^\n]*/y;

/** Splits code into coloured tokens; concatenating their text gives back the input exactly. */
export function highlightCode(code: string, language: string): CodeToken[] {
  const tokens: CodeToken[] = [];
  const push = (kind: TokenKind, text: string) => {
    const last = tokens.at(-1);
    if (last && last.kind === kind) last.text += text;
    else tokens.push({ kind, text });
  };
  const sql = language === 'sql';
  const hash = hashComments.has(language);
  let index = 0;
  outer: while (index < code.length) {
    if (hash && code[index] === '#') {
      hashComment.lastIndex = index;
      const text = hashComment.exec(code)![0];
      push('comment', text);
      index += text.length;
      continue;
    }
    for (const [kind, pattern] of patterns) {
      if (kind === 'comment' && code.startsWith('--', index) && !sql) continue;
      pattern.lastIndex = index;
      const match = pattern.exec(code);
      if (match === null || match[0] === '') continue;
      const text = match[0];
      if (kind === 'word') push(wordKind(text, sql), text);
      else push(kind, text);
      index += text.length;
      continue outer;
    }
    push('plain', code[index]!);
    index += 1;
  }
  return tokens;
}

function wordKind(word: string, sql: boolean): TokenKind {
  if (literals.has(word)) return 'literal';
  if (keywords.has(word) || (sql && sqlKeywords.test(word))) return 'keyword';
  return 'plain';
}
