import { useMemo } from 'preact/hooks';
import { highlightCode } from '../markdown/highlight-code.ts';
import { CopyButton } from './copy-button.tsx';

/** A fenced code block: coloured tokens (text nodes only), its language and a copy button. */
export function CodeBlock({ language, text }: { language: string; text: string }) {
  const tokens = useMemo(() => highlightCode(text, language), [text, language]);
  return (
    <figure class="code-block" data-testid="code-block">
      <figcaption class="code-block-bar">
        <span>{language || 'code'}</span>
        <CopyButton text={() => text} label={`Copy ${language || ''} code`.replace('  ', ' ')} />
      </figcaption>
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard. */}
      <pre tabIndex={0}>
        <code>
          {tokens.map((token, index) =>
            token.kind === 'plain' ? (
              token.text
            ) : (
              <span key={index} class={`token-${token.kind}`}>
                {token.text}
              </span>
            ),
          )}
        </code>
      </pre>
    </figure>
  );
}
