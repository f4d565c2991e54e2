import { type MarkdownBlock, parseMarkdownBlocks } from './markdown-blocks.ts';
import { type MarkdownInline, parseMarkdownInline } from './markdown-inline.ts';

const LANGUAGE = /^[\w#+.-]{1,32}$/;

interface InlineContext {
  insideBold: boolean;
  insideLink: boolean;
}

/**
 * Markdown → Telegram HTML (`parse_mode: 'HTML'`). Emits only b, i, s, code, pre, a and
 * blockquote, always well nested; every `<`, `>` and `&` of the input is escaped, code included;
 * only http(s) links become anchors. Anything else is shown as escaped text, so a reply can never
 * be rejected by Telegram's entity parser.
 */
export function renderTelegramHtml(markdown: string): string {
  return renderBlocks(parseMarkdownBlocks(markdown), false);
}

function renderBlocks(blocks: MarkdownBlock[], insideQuote: boolean): string {
  return blocks.map((block) => renderBlock(block, insideQuote)).join('\n');
}

function renderBlock(block: MarkdownBlock, insideQuote: boolean): string {
  switch (block.type) {
    case 'code': {
      const language = block.info.split(/\s+/)[0] ?? '';
      const code = escapeHtml(block.text);
      return LANGUAGE.test(language)
        ? `<pre><code class="language-${language}">${code}</code></pre>`
        : `<pre>${code}</pre>`;
    }
    case 'heading':
      return `<b>${renderInline(parseMarkdownInline(block.text), { insideBold: true, insideLink: false })}</b>`;
    case 'quote': {
      // Telegram does not nest blockquotes: inner quotes are flattened into the outer one.
      const inner = renderBlocks(parseMarkdownBlocks(block.text), true);
      return insideQuote ? inner : `<blockquote>${inner}</blockquote>`;
    }
    case 'list-item': {
      const bullet = block.ordered ? block.marker : '•';
      return `${block.indent}${bullet} ${renderInline(parseMarkdownInline(block.text), PLAIN)}`;
    }
    case 'rule':
      return '———';
    case 'paragraph':
      return renderInline(parseMarkdownInline(block.text), PLAIN);
    case 'blank':
      return '';
  }
}

const PLAIN: InlineContext = { insideBold: false, insideLink: false };

function renderInline(nodes: MarkdownInline[], context: InlineContext): string {
  return nodes.map((node) => renderNode(node, context)).join('');
}

function renderNode(node: MarkdownInline, context: InlineContext): string {
  switch (node.type) {
    case 'text':
      return escapeHtml(node.value);
    case 'code':
      // Telegram lets only bold/italic/strike nest with other entities, so no code inside a link.
      return context.insideLink ? escapeHtml(node.value) : `<code>${escapeHtml(node.value)}</code>`;
    case 'strong': {
      const inner = renderInline(node.children, { ...context, insideBold: true });
      return context.insideBold ? inner : `<b>${inner}</b>`;
    }
    case 'emphasis':
      return `<i>${renderInline(node.children, context)}</i>`;
    case 'strike':
      return `<s>${renderInline(node.children, context)}</s>`;
    case 'link': {
      const label = renderInline(node.children, { ...context, insideLink: true });
      if (context.insideLink) return label;
      if (isHttpUrl(node.url))
        return `<a href="${escapeHtml(node.url).replaceAll('"', '&quot;')}">${label}</a>`;
      return `${label} (${escapeHtml(node.url)})`;
    }
  }
}

function isHttpUrl(url: string): boolean {
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:';
  } catch {
    return false;
  }
}

function escapeHtml(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}
