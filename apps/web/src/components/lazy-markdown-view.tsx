import { useEffect, useState } from 'preact/hooks';

type MarkdownModule = typeof import('./markdown-view.tsx');
let loaded: MarkdownModule | undefined;
let loading: Promise<MarkdownModule> | undefined;

/**
 * Fetches the Markdown renderer (marked's lexer and the views) once. A first load with nothing to
 * render does not need it; the composer asks for it as soon as the person starts typing, so it is
 * there before the first reply.
 */
export function preloadMarkdown(): Promise<MarkdownModule> {
  loading ??= import('./markdown-view.tsx').then((module) => {
    loaded = module;
    return module;
  });
  return loading;
}

/** A reply as Markdown; until the renderer has arrived (a moment, once per page), as plain text. */
export function LazyMarkdownView({ text, final }: { text: string; final: boolean }) {
  const [module, setModule] = useState(loaded);
  useEffect(() => {
    if (module) return;
    let current = true;
    preloadMarkdown().then(
      (ready) => current && setModule(ready),
      () => {
        // Offline before the chunk was cached: the text stays readable as it is.
      },
    );
    return () => {
      current = false;
    };
  }, [module]);
  if (module) return <module.MarkdownView text={text} final={final} />;
  return <p class="message-text">{text}</p>;
}
