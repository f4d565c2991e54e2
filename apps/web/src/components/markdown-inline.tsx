import type { ComponentChildren } from 'preact';
import { decodeEntities } from '../markdown/decode-entities.ts';
import type { Token } from '../markdown/lex-markdown.ts';
import type { MathToken } from '../markdown/math-extension.ts';
import { safeHref } from '../markdown/safe-href.ts';
import { MathView } from './math-view.tsx';
import { RemoteImage } from './remote-image.tsx';

/** Inline tokens as Preact elements: text nodes, validated links, code, emphasis, math, images. */
export function renderInlines(tokens: Token[] | undefined): ComponentChildren {
  if (!tokens) return null;
  return tokens.map((token, key) => renderInline(token, key));
}

function renderInline(token: Token, key: number): ComponentChildren {
  switch (token.type) {
    case 'text':
      // A list item's text can hold inline tokens of its own.
      return 'tokens' in token && token.tokens ? renderInlines(token.tokens) : decodeEntities(token.text);
    case 'escape':
      return token.text;
    case 'codespan':
      return <code key={key}>{token.text}</code>;
    case 'strong':
      return <strong key={key}>{renderInlines(token.tokens)}</strong>;
    case 'em':
      return <em key={key}>{renderInlines(token.tokens)}</em>;
    case 'del':
      return <del key={key}>{renderInlines(token.tokens)}</del>;
    case 'br':
      return <br key={key} />;
    case 'link': {
      const href = safeHref(token.href);
      if (href === undefined) return renderInlines(token.tokens);
      return (
        <a key={key} href={href} target="_blank" rel="noopener noreferrer" title={token.title ?? undefined}>
          {renderInlines(token.tokens)}
        </a>
      );
    }
    case 'image':
      return <RemoteImage key={key} href={token.href} alt={token.text} />;
    case 'math': {
      const math = token as MathToken;
      return <MathView key={key} tex={math.tex} display={math.display} />;
    }
    case 'checkbox':
      return null;
    default:
      // Raw HTML (and anything unknown) stays visible as the text it was written as.
      return token.raw;
  }
}
