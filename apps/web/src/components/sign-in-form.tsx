import { useState } from 'preact/hooks';

export interface SignInFormProps {
  error: string | undefined;
  onToken: (token: string) => void;
}

export function SignInForm({ error, onToken }: SignInFormProps) {
  const [value, setValue] = useState('');
  return (
    <main class="sign-in">
      <form
        class="sign-in-form"
        data-testid="sign-in-form"
        onSubmit={(event) => {
          event.preventDefault();
          const token = value.trim();
          if (token !== '') onToken(token);
        }}
      >
        <h1>Nexus</h1>
        <label for="token-input">
          Paste the token printed by <code>nexus start</code>
        </label>
        <input
          id="token-input"
          data-testid="token-input"
          type="password"
          autocomplete="off"
          spellcheck={false}
          value={value}
          onInput={(event) => setValue(event.currentTarget.value)}
          required
        />
        {error !== undefined && (
          <p class="sign-in-error" role="alert" data-testid="sign-in-error">
            {error}
          </p>
        )}
        <button type="submit" data-testid="sign-in-button">
          Connect
        </button>
      </form>
    </main>
  );
}
