import { useState } from 'preact/hooks';
import type { SendResult } from '../chat-session.ts';

export function EditForm(props: {
  text: string;
  onSave: (text: string) => SendResult;
  onCancel: () => void;
}) {
  const [text, setText] = useState(props.text);
  const [problem, setProblem] = useState<string>();
  const save = () => {
    const result = props.onSave(text);
    if (!result.ok) setProblem(result.reason);
  };
  return (
    <form
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
        rows={Math.min(6, text.split('\n').length)}
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
      <span class="message-actions">
        <button type="submit" class="link-button" data-testid="save-edit">
          Save
        </button>
        <button type="button" class="link-button" onClick={props.onCancel}>
          Cancel
        </button>
      </span>
    </form>
  );
}
