export function NoticeBanner({ text }: { text: string }) {
  return (
    <aside class="notice" role="note" aria-label="Notice from the gateway" data-testid="notice">
      {text}
    </aside>
  );
}
