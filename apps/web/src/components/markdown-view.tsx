import type { ComponentChildren } from 'preact';
import { useMemo } from 'preact/hooks';
import { type Block, parseBlocks } from '../markdown/parse-blocks.ts';
import type { Inline } from '../markdown/parse-inline.ts';
import { CodeBlock } from './code-block.tsx';

/**
 * Model text as Markdown. The text is untrusted, so it is parsed into plain data and built into
 * DOM by Preact: every string lands in a text node or a validated `href`, never in innerHTML.
 */
export function MarkdownView({ text }: { text: string }) {
  const blocks = useMemo(() => parseBlocks(text), [text]);
  return <div class="markdown">{blocks.map(renderBlock)}</div>;
}

function renderBlock(block: Block, key: number): ComponentChildren {
  switch (block.kind) {
    case 'heading': {
      // Replies sit under the page's h1 and the conversation's h2; their headings start at h3.
      const Tag = `h${Math.min(6, block.level + 2)}` as 'h3';
      return <Tag key={key}>{renderInlines(block.content)}</Tag>;
    }
    case 'paragraph':
      return <p key={key}>{renderInlines(block.content)}</p>;
    case 'code':
      return <CodeBlock key={key} language={block.language} text={block.text} />;
    case 'quote':
      return <blockquote key={key}>{block.blocks.map(renderBlock)}</blockquote>;
    case 'rule':
      return <hr key={key} />;
    case 'list': {
      const items = block.items.map((item, index) => <li key={index}>{renderListItem(item)}</li>);
      return block.ordered ? (
        <ol key={key} start={block.start === 1 ? undefined : block.start}>
          {items}
        </ol>
      ) : (
        <ul key={key}>{items}</ul>
      );
    }
    case 'table':
      return (
        // biome-ignore lint/a11y/noNoninteractiveTabindex: a wide table scrolls; keyboard users must reach it.
        <section key={key} class="table-scroll" tabIndex={0} aria-label="Table">
          <table>
            <thead>
              <tr>
                {block.head.map((cell, column) => (
                  <th key={column} scope="col" style={alignOf(block.align[column])}>
                    {renderInlines(cell)}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {block.rows.map((row, index) => (
                <tr key={index}>
                  {row.map((cell, column) => (
                    <td key={column} style={alignOf(block.align[column])}>
                      {renderInlines(cell)}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      );
  }
}

/** A list item of one paragraph renders tight (no <p>), as Markdown renderers do. */
function renderListItem(blocks: Block[]): ComponentChildren {
  const [first, ...rest] = blocks;
  if (first?.kind !== 'paragraph') return blocks.map(renderBlock);
  return [renderInlines(first.content), ...rest.map((block, index) => renderBlock(block, index + 1))];
}

function alignOf(align: 'left' | 'center' | 'right' | undefined) {
  return align === undefined ? undefined : { textAlign: align };
}

function renderInlines(nodes: Inline[]): ComponentChildren {
  return nodes.map((node, key): ComponentChildren => {
    switch (node.kind) {
      case 'text':
        return node.text;
      case 'break':
        return <br key={key} />;
      case 'code':
        return <code key={key}>{node.text}</code>;
      case 'strong':
        return <strong key={key}>{renderInlines(node.children)}</strong>;
      case 'em':
        return <em key={key}>{renderInlines(node.children)}</em>;
      case 'del':
        return <del key={key}>{renderInlines(node.children)}</del>;
      case 'link':
        return (
          <a key={key} href={node.href} target="_blank" rel="noopener noreferrer">
            {renderInlines(node.children)}
          </a>
        );
      default:
        return null;
    }
  });
}
