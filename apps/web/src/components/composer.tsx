import { useEffect, useRef, useState } from 'preact/hooks';
import type { MessageAttachment, SendResult } from '../chat-session.ts';
import type { PendingAttachments } from '../use-pending-attachments.ts';
import { AttachmentTray } from './attachment-tray.tsx';
import { PaperclipIcon, StopIcon } from './icons.tsx';
import { preloadMarkdown } from './lazy-markdown-view.tsx';
import { VoiceButton } from './voice-button.tsx';

export interface ComposerProps {
  /** The conversation shown: the message box takes the focus on load and after each switch. */
  focusKey?: string;
  maxTextChars: number | undefined;
  onSend: (text: string, attachments: MessageAttachment[]) => SendResult;
  /** Absent when the server takes no files: no attach or record controls. */
  attachments?: PendingAttachments;
  /** Uploads a finished recording and sends it as a voice note; rejects with a message to show. */
  onVoiceNote?: (audio: Blob) => Promise<void>;
  /** Present while a reply streams: Stop replaces Send and stops the reply on the gateway too. */
  onStop?: () => void;
}

export function Composer({
  focusKey,
  maxTextChars,
  onSend,
  attachments,
  onVoiceNote,
  onStop,
}: ComposerProps) {
  const [text, setText] = useState('');
  const [problem, setProblem] = useState<string>();
  const inputRef = useRef<HTMLTextAreaElement>(null);
  const fileRef = useRef<HTMLInputElement>(null);
  const pending = attachments?.items ?? [];
  const failed = pending.some((item) => item.error !== undefined);
  // With a mouse or trackpad the box is ready to type in; on a touch screen focusing it would
  // raise the keyboard over the conversation the person came to read.
  useEffect(() => {
    if (window.matchMedia?.('(pointer: fine)').matches) inputRef.current?.focus();
  }, [focusKey]);

  const submit = () => {
    const ready = attachments?.ready() ?? [];
    if (attachments && pending.length > 0 && attachments.ready() === undefined) {
      setProblem(
        failed ? 'Remove the files that failed to upload first.' : 'Wait for the files to finish uploading.',
      );
      return;
    }
    const result = onSend(text, ready);
    if (result.ok) {
      setText('');
      setProblem(undefined);
      attachments?.clear();
    } else {
      setProblem(result.reason);
    }
    inputRef.current?.focus();
  };

  return (
    <form
      class="composer"
      onSubmit={(event) => {
        event.preventDefault();
        submit();
      }}
    >
      {problem !== undefined && (
        <p class="composer-problem" role="alert">
          {problem}
        </p>
      )}
      {attachments && <AttachmentTray items={pending} onRemove={attachments.remove} />}
      <div class="composer-row">
        {attachments && (
          <>
            <input
              ref={fileRef}
              type="file"
              class="visually-hidden"
              data-testid="attach-input"
              aria-label="Attach files"
              accept="image/*,audio/*,application/pdf,text/plain"
              multiple
              onChange={(event) => {
                const files = event.currentTarget.files;
                if (files) attachments.add(files);
                event.currentTarget.value = '';
              }}
            />
            <button
              type="button"
              class="secondary icon-button"
              data-testid="attach-button"
              aria-label="Attach a file"
              title="Attach a file"
              onClick={() => fileRef.current?.click()}
            >
              <PaperclipIcon />
            </button>
          </>
        )}
        <textarea
          ref={inputRef}
          data-testid="message-input"
          aria-label="Message"
          placeholder="Message Nexus"
          rows={Math.min(6, text.split('\n').length)}
          maxLength={maxTextChars}
          value={text}
          onInput={(event) => {
            setText(event.currentTarget.value);
            void preloadMarkdown();
          }}
          onPaste={(event) => {
            const files = [...(event.clipboardData?.files ?? [])];
            if (attachments && files.length > 0) {
              event.preventDefault();
              attachments.add(files);
            }
          }}
          onKeyDown={(event) => {
            if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
              event.preventDefault();
              submit();
            }
          }}
        />
        {onVoiceNote && <VoiceButton onRecorded={onVoiceNote} onProblem={setProblem} />}
        {onStop ? (
          // Stop takes Send's place while a reply streams; Enter still queues a new message.
          <button
            type="button"
            class="stop-reply-button"
            data-testid="stop-button"
            aria-label="Stop the reply"
            title="Stop the reply"
            onClick={onStop}
          >
            <StopIcon />
            <span>Stop</span>
          </button>
        ) : (
          <button
            type="submit"
            data-testid="send-button"
            disabled={(text.trim() === '' && pending.length === 0) || attachments?.busy || failed}
          >
            Send
          </button>
        )}
      </div>
    </form>
  );
}
