import type { ReplyVersions } from '../reply-versions.ts';

/** ‹ 2/3 ›: pages between the versions of an answer (regenerated, or to an edited message). */
export function ReplyVersionControls({
  versions,
  disabled,
  onChoose,
}: {
  versions: ReplyVersions;
  disabled: boolean;
  onChoose: (replyId: string) => void;
}) {
  const { index, replyIds } = versions;
  const go = (to: number) => {
    const replyId = replyIds[to];
    if (replyId !== undefined) onChoose(replyId);
  };
  return (
    <span class="reply-versions" data-testid="reply-versions">
      <button
        type="button"
        class="reply-versions-step"
        data-testid="previous-version"
        aria-label="Previous version of this answer"
        disabled={disabled || index === 0}
        onClick={() => go(index - 1)}
      >
        ‹
      </button>
      <span class="reply-versions-position" data-testid="version-position" aria-live="polite">
        {index + 1}/{replyIds.length}
      </span>
      <button
        type="button"
        class="reply-versions-step"
        data-testid="next-version"
        aria-label="Next version of this answer"
        disabled={disabled || index === replyIds.length - 1}
        onClick={() => go(index + 1)}
      >
        ›
      </button>
    </span>
  );
}

/** On an error bubble: asks for the answer again. */
export function TryAgainButton({ onTryAgain }: { onTryAgain: () => void }) {
  return (
    <button type="button" class="link-button try-again-button" data-testid="try-again" onClick={onTryAgain}>
      Try again
    </button>
  );
}
