import type { Tokens } from 'marked';
import { Component, type ComponentChildren } from 'preact';
import { useMemo, useRef } from 'preact/hooks';
import { decodeEntities } from '../markdown/decode-entities.ts';
import { IncrementalMarkdown } from '../markdown/incremental-markdown.ts';
import { lexInlines, type Token } from '../markdown/lex-markdown.ts';
import type { MathToken } from '../markdown/math-extension.ts';
import { CodeBlock } from './code-block.tsx';
import { renderInlines } from './markdown-inline.tsx';
import { MathView } from './math-view.tsx';
import { useDeferredBlocks } from './use-deferred-blocks.ts';

/**
 * Model text as Markdown. The text is untrusted: marked's lexer turns it into tokens and Preact
 * builds them into DOM, so every string lands in a text node or a validated `href`, never in
 * innerHTML. While a reply streams, finished blocks keep their tokens and their elements; a long
 * reply that arrives whole is drawn from its end upwards in short steps (use-deferred-blocks.ts).
 */
export function MarkdownView({ text, final = true }: { text: string; final?: boolean }) {
  const markdown = useRef<IncrementalMarkdown | undefined>(undefined);
  markdown.current ??= new IncrementalMarkdown();
  const tokens = useMemo(() => markdown.current!.update(text, final), [text, final]);
  const hidden = useDeferredBlocks(tokens, markdown.current.relexes);
  const sections: ComponentChildren[] = [];
  for (
    let start = Math.floor(hidden / sectionSize) * sectionSize;
    start < tokens.length;
    start += sectionSize
  )
    sections.push(<BlockSection key={start} tokens={tokens} start={start} from={Math.max(start, hidden)} />);
  return (
    <div class="markdown" aria-busy={hidden > 0 ? true : undefined}>
      {hidden > 0 && (
        // Holds the place of the blocks still to be drawn, guessed as a group's size is.
        <div class="markdown-pending" style={{ height: `${pendingRem(tokens, hidden)}rem` }} />
      )}
      {sections}
    </div>
  );
}

function pendingRem(tokens: readonly Token[], hidden: number): number {
  let chars = 0;
  for (let index = 0; index < hidden; index++) chars += tokens[index]!.raw.length;
  return estimatedRem(hidden, chars);
}

/**
 * Blocks are grouped so that a chunk of a 100 KB reply compares a few dozen groups, not thousands
 * of blocks: a group is drawn again only when one of its tokens changed (the stream's last block)
 * or more of it is to be shown.
 */
const sectionSize = 32;

interface BlockSectionProps {
  /** The reply's tokens: the same array while it streams, so the group keeps its own copy. */
  tokens: readonly Token[];
  start: number;
  /** The first block of the group to draw (the ones before it wait for a later step). */
  from: number;
}

class BlockSection extends Component<BlockSectionProps> {
  private shown: Token[] = [];
  private shownFrom = -1;
  override shouldComponentUpdate({ tokens, start, from }: BlockSectionProps): boolean {
    if (from !== this.shownFrom) return true;
    const end = Math.min(tokens.length, start + sectionSize);
    if (end - start !== this.shown.length) return true;
    for (let index = start; index < end; index++)
      if (tokens[index] !== this.shown[index - start]) return true;
    return false;
  }
  override render({ tokens, start, from }: BlockSectionProps) {
    this.shown = tokens.slice(start, start + sectionSize);
    this.shownFrom = from;
    const blocks = this.shown.slice(from - start);
    let chars = 0;
    for (const token of blocks) chars += token.raw.length;
    return (
      // Until the group is first laid out (it is off screen) it takes a height guessed from its
      // length: about a line per 60 characters, and a little between blocks.
      <div
        class="markdown-section"
        style={{ containIntrinsicSize: `auto ${estimatedRem(blocks.length, chars)}rem` }}
      >
        {blocks.map((token, index) => (
          <TokenBlock key={from + index} token={token} />
        ))}
      </div>
    );
  }
}

function estimatedRem(blocks: number, chars: number): number {
  return Math.round(1.5 * (chars / 60) + 0.5 * blocks);
}

/**
 * One top-level block; a finished block's token is the same object, so it is not built again. Its
 * inline tokens are made here, when it is first drawn: a long reply's blocks still waiting to be
 * drawn cost only their block lex.
 */
class TokenBlock extends Component<{ token: Token }> {
  override shouldComponentUpdate(next: { token: Token }): boolean {
    return next.token !== this.props.token;
  }
  override render({ token }: { token: Token }) {
    return renderBlock(lexInlines(token), 0, 0);
  }
}

/** Hostile input can nest quotes and lists thousands deep; past this depth content is flattened. */
const maxDepth = 12;

function renderBlocks(tokens: Token[], depth: number): ComponentChildren {
  return tokens.map((token, key) => renderBlock(token, key, depth));
}

function renderBlock(token: Token, key: number, depth: number): ComponentChildren {
  switch (token.type) {
    case 'space':
    case 'def':
    case 'checkbox':
      return null;
    case 'heading': {
      // Replies sit under the page's h1 and the conversation's h2; their headings start at h3.
      const Tag = `h${Math.min(6, token.depth + 2)}` as 'h3';
      return <Tag key={key}>{renderInlines(token.tokens)}</Tag>;
    }
    case 'paragraph':
      return <p key={key}>{renderInlines(token.tokens)}</p>;
    case 'text':
      return 'tokens' in token && token.tokens ? renderInlines(token.tokens) : decodeEntities(token.text);
    case 'code':
      return (
        <CodeBlock key={key} language={(token.lang ?? '').split(/\s/)[0]!.toLowerCase()} text={token.text} />
      );
    case 'hr':
      return <hr key={key} />;
    case 'blockquote':
      return (
        <blockquote key={key}>
          {depth < maxDepth ? renderBlocks(token.tokens ?? [], depth + 1) : token.text}
        </blockquote>
      );
    case 'list':
      return renderList(token as Tokens.List, key, depth);
    case 'table':
      return renderTable(token as Tokens.Table, key);
    case 'math': {
      const math = token as MathToken;
      return (
        <div key={key} class="math-block">
          <MathView tex={math.tex} display />
        </div>
      );
    }
    default:
      // Raw HTML blocks stay visible as the text they were written as.
      return (
        <p key={key} class="markdown-raw">
          {token.raw.trimEnd()}
        </p>
      );
  }
}

function renderList(list: Tokens.List, key: number, depth: number): ComponentChildren {
  const tasks = list.items.some((item) => item.task);
  const items = list.items.map((item, index) => (
    <li key={index} class={item.task ? 'task' : undefined}>
      {depth < maxDepth ? renderItem(item, depth) : item.text}
    </li>
  ));
  const className = tasks ? 'task-list' : undefined;
  if (!list.ordered)
    return (
      <ul key={key} class={className}>
        {items}
      </ul>
    );
  const start = typeof list.start === 'number' ? list.start : 1;
  return (
    <ol key={key} class={className} start={start === 1 ? undefined : start}>
      {items}
    </ol>
  );
}

/**
 * A list item's blocks. A task's checkbox goes where the bullet would be, inside its first
 * paragraph (a loose list's items are paragraphs), so the words stay on the checkbox's line.
 */
function renderItem(item: Tokens.ListItem, depth: number): ComponentChildren {
  if (!item.task) return renderBlocks(item.tokens, depth + 1);
  const box = (
    // A read-only checkbox: the model's list shows its state; there is nothing to toggle.
    <input
      key="checkbox"
      type="checkbox"
      checked={item.checked === true}
      disabled
      aria-label={item.checked ? 'Done' : 'Not done'}
    />
  );
  const blocks = item.tokens.filter((token) => token.type !== 'checkbox');
  const first = blocks[0];
  if (first?.type !== 'paragraph') return [box, renderBlocks(blocks, depth + 1)];
  return [
    <p key="first">
      {box}
      {renderInlines(first.tokens)}
    </p>,
    blocks.slice(1).map((token, index) => renderBlock(token, index + 1, depth + 1)),
  ];
}

function renderTable(table: Tokens.Table, key: number): ComponentChildren {
  const alignOf = (column: number) => {
    const align = table.align[column];
    return align ? { textAlign: align } : undefined;
  };
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a wide table scrolls; keyboard users must reach it.
    <section key={key} class="table-scroll" tabIndex={0} aria-label="Table">
      <table>
        <thead>
          <tr>
            {table.header.map((cell, column) => (
              <th key={column} scope="col" style={alignOf(column)}>
                {renderInlines(cell.tokens)}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {table.rows.map((row, index) => (
            <tr key={index}>
              {row.map((cell, column) => (
                <td key={column} style={alignOf(column)}>
                  {renderInlines(cell.tokens)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
