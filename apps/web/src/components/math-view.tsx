import { useEffect, useRef, useState } from 'preact/hooks';

type Katex = typeof import('katex').default;
let katexLoad: Promise<Katex> | undefined;

/** KaTeX is large: it is fetched the first time a reply holds math, never on a first load. */
function loadKatex(): Promise<Katex> {
  katexLoad ??= import('katex').then((module) => module.default);
  return katexLoad;
}

/**
 * A TeX formula as MathML, which the browser lays out without fonts or style sheets. KaTeX builds
 * the MathML as DOM nodes (no HTML string); `trust: false` refuses \href, \url and the like. Until
 * it has loaded, and if it fails, the TeX source shows as code.
 */
export function MathView({ tex, display }: { tex: string; display: boolean }) {
  const holder = useRef<HTMLSpanElement>(null);
  const [rendered, setRendered] = useState(false);
  useEffect(() => {
    let current = true;
    loadKatex()
      .then((katex) => {
        const element = holder.current;
        if (!current || !element) return;
        katex.render(tex, element, {
          displayMode: display,
          output: 'mathml',
          throwOnError: false,
          trust: false,
          maxSize: 50,
          maxExpand: 500,
        });
        setRendered(true);
      })
      .catch(() => setRendered(false));
    return () => {
      current = false;
    };
  }, [tex, display]);
  return (
    <span class={display ? 'math math-display' : 'math'} data-testid="math">
      <span ref={holder} />
      {!rendered && <code class="math-source">{tex}</code>}
    </span>
  );
}
