import { useEffect, useState } from 'preact/hooks';

type RenderMarkdown = (text: string) => string;

let loaded: RenderMarkdown | undefined;
let loading: Promise<RenderMarkdown> | undefined;

/**
 * Loads markdown-it (three quarters of the script) as its own chunk, so the page shell paints
 * without waiting for it. Called at startup; until it arrives, replies show as plain text.
 */
export function preloadMarkdown(): Promise<RenderMarkdown> {
  loading ??= import('./markdown.ts').then(
    (module) => {
      loaded = module.renderMarkdown;
      return module.renderMarkdown;
    },
    (error: unknown) => {
      loading = undefined;
      throw error;
    },
  );
  return loading;
}

/** The Markdown renderer once loaded, else undefined (render the text as plain text meanwhile). */
export function useMarkdown(): RenderMarkdown | undefined {
  const [render, setRender] = useState<RenderMarkdown | undefined>(() => loaded);
  useEffect(() => {
    if (render !== undefined) return;
    let active = true;
    preloadMarkdown().then(
      (value) => active && setRender(() => value),
      () => {
        // Chunk failed to load (e.g. the gateway was upgraded): plain text stays, which is safe.
      },
    );
    return () => {
      active = false;
    };
  }, [render]);
  return render;
}
