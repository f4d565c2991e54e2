/** Among the newest reply's actions: asks for another answer to the person's message. */
export function RegenerateButton({ onRegenerate }: { onRegenerate: () => void }) {
  return (
    <button
      type="button"
      class="link-button"
      data-testid="regenerate-reply"
      aria-label="Regenerate this reply"
      onClick={onRegenerate}
    >
      Regenerate
    </button>
  );
}
