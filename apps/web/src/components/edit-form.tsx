import { useEffect, useRef, useState } from 'preact/hooks';
import type { SendResult } from '../chat-session.ts';

export function EditForm(props: {
  text: string;
  onSave: (text: string) => SendResult;
  onCancel: () => void;
}) {
  const [text, setText] = useState(props.text);
  const [problem, setProblem] = useState<string>();
  const formRef = useRef<HTMLFormElement>(null);
  // The form is taller than the message it replaces: bring all of it into view.
  useEffect(() => formRef.current?.scrollIntoView({ block: 'nearest' }), []);
  const save = () => {
    const result = props.onSave(text);
    if (!result.ok) setProblem(result.reason);
  };
  return (
    <form
      ref={formRef}
      class="edit-form"
      onSubmit={(event) => {
        event.preventDefault();
        save();
      }}
    >
      <textarea
        data-testid="edit-input"
        aria-label="Edit message"
        value={text}
        rows={Math.max(3, Math.min(10, text.split('\n').length + 1))}
        // biome-ignore lint/a11y/noAutofocus: the person just pressed Edit; the text is where they act.
        autoFocus
        onInput={(event) => setText(event.currentTarget.value)}
        onKeyDown={(event) => {
          if (event.key === 'Escape') props.onCancel();
          if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
            event.preventDefault();
            save();
          }
        }}
      />
      {problem && (
        <span class="message-meta message-failure" role="alert">
          {problem}
        </span>
      )}
      <span class="edit-form-buttons">
        <button type="button" class="secondary" onClick={props.onCancel}>
          Cancel
        </button>
        <button type="submit" data-testid="save-edit">
          Save
        </button>
      </span>
    </form>
  );
}
