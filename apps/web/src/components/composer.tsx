import { useRef, useState } from 'preact/hooks';
import type { SendResult } from '../chat-session.ts';

export interface ComposerProps {
  maxTextChars: number | undefined;
  onSend: (text: string) => SendResult;
}

export function Composer({ maxTextChars, onSend }: ComposerProps) {
  const [text, setText] = useState('');
  const [problem, setProblem] = useState<string>();
  const inputRef = useRef<HTMLTextAreaElement>(null);

  const submit = () => {
    const result = onSend(text);
    if (result.ok) {
      setText('');
      setProblem(undefined);
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
      <div class="composer-row">
        <textarea
          ref={inputRef}
          data-testid="message-input"
          aria-label="Message"
          placeholder="Message Nexus"
          rows={Math.min(6, text.split('\n').length)}
          maxLength={maxTextChars}
          value={text}
          onInput={(event) => setText(event.currentTarget.value)}
          onKeyDown={(event) => {
            if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
              event.preventDefault();
              submit();
            }
          }}
        />
        <button type="submit" data-testid="send-button" disabled={text.trim() === ''}>
          Send
        </button>
      </div>
    </form>
  );
}
