import { type MarkdownBlock, parseMarkdownBlocks } from './markdown-blocks.ts';
import { type MarkdownInline, parseMarkdownInline, plainInlineText } from './markdown-inline.ts';

/**
 * Markdown → WhatsApp formatting: `*bold*`, `_italic_`, `~strike~`, ``` blocks, `code`.
 * WhatsApp has no links or headings, so links become `text (url)` and headings a bold line.
 */
export function renderWhatsAppText(markdown: string): string {
  return renderBlocks(parseMarkdownBlocks(markdown));
}

function renderBlocks(blocks: MarkdownBlock[]): string {
  return blocks.map(renderBlock).join('\n');
}

function renderBlock(block: MarkdownBlock): string {
  switch (block.type) {
    case 'code':
      return `\`\`\`\n${block.text}\n\`\`\``;
    case 'heading': {
      const text = renderInline(parseMarkdownInline(block.text), true).trim();
      return text ? `*${text}*` : '';
    }
    case 'quote':
      return renderBlocks(parseMarkdownBlocks(block.text))
        .split('\n')
        .map((line) => `> ${line}`)
        .join('\n');
    case 'list-item':
      return `${block.indent}${block.ordered ? block.marker : '•'} ${renderInline(parseMarkdownInline(block.text), false)}`;
    case 'rule':
      return '———';
    case 'paragraph':
      return renderInline(parseMarkdownInline(block.text), false);
    case 'blank':
      return '';
  }
}

function renderInline(nodes: MarkdownInline[], insideBold: boolean): string {
  return nodes.map((node) => renderNode(node, insideBold)).join('');
}

function renderNode(node: MarkdownInline, insideBold: boolean): string {
  switch (node.type) {
    case 'text':
      return node.value;
    case 'code':
      return `\`${node.value}\``;
    case 'strong': {
      const inner = renderInline(node.children, true);
      return insideBold ? inner : `*${inner}*`;
    }
    case 'emphasis':
      return `_${renderInline(node.children, insideBold)}_`;
    case 'strike':
      return `~${renderInline(node.children, insideBold)}~`;
    case 'link': {
      const label = plainInlineText(node.children).trim();
      const url = node.url.replace(/^mailto:/i, '');
      return !label || label === node.url || label === url ? url : `${label} (${url})`;
    }
  }
}
