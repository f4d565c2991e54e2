import type { ChatMessage } from '../conversation-state.ts';
import type { ReplyVersions } from '../reply-versions.ts';

/**
 * Under a reply or an error: Try again (on an error about the newest message), the Stopped mark,
 * and the pager between the versions of an answer.
 */
export function ReplyFooter(props: {
  message: ChatMessage;
  versions?: ReplyVersions | undefined;
  retryOf?: string | undefined;
  onRegenerate?: ((clientMessageId: string) => unknown) | undefined;
  onChooseVersion?: ((clientMessageId: string, replyId: string) => unknown) | undefined;
}) {
  const { message, versions, retryOf, onRegenerate, onChooseVersion } = props;
  return (
    <>
      {retryOf !== undefined && onRegenerate && <TryAgainButton onTryAgain={() => onRegenerate(retryOf)} />}
      {message.role === 'assistant' && message.stopped && (
        <span class="message-meta message-stopped-mark" data-testid="stopped-mark">
          {message.text === '' && !message.media?.length ? 'Stopped before the answer began' : 'Stopped'}
        </span>
      )}
      {versions !== undefined && onChooseVersion && (
        <ReplyVersionControls
          versions={versions}
          disabled={message.state === 'streaming'}
          onChoose={(replyId) => onChooseVersion(versions.questionId, replyId)}
        />
      )}
    </>
  );
}

/** ‹ 2/3 ›: pages between the versions of an answer (regenerated, or to an edited message). */
function ReplyVersionControls({
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
function TryAgainButton({ onTryAgain }: { onTryAgain: () => void }) {
  return (
    <button type="button" class="link-button try-again-button" data-testid="try-again" onClick={onTryAgain}>
      Try again
    </button>
  );
}
