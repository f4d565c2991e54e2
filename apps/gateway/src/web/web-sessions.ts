import { createHash, randomBytes } from 'node:crypto';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';

/** The file under the data directory: the owner's client id and the hashes of live sessions. */
export const WEB_SESSIONS_FILE = 'web-sessions.json';

/** A signed-in browser stays signed in this long without signing in again. */
export const WEB_SESSION_LIFETIME_MS = 90 * 24 * 60 * 60 * 1000;

const fileSchema = z.object({
  ownerClientId: z.string().min(1).max(128).optional(),
  sessions: z.record(z.string(), z.object({ clientId: z.string().min(1).max(128), createdAt: z.number() })),
});

type SessionsFile = z.infer<typeof fileSchema>;

export class WebSessionsError extends Error {
  readonly code = 'web_sessions_unreadable';
  readonly retryable = false;

  constructor(path: string, cause: unknown) {
    super(`${path} cannot be read as web sessions; move it away to sign every browser out`, { cause });
    this.name = 'WebSessionsError';
  }
}

const hashOf = (sessionId: string) => createHash('sha256').update(sessionId, 'utf8').digest('hex');

/**
 * Web sign-in sessions. The owner link is one person: the first browser that signs in with it
 * gives the owner its client id (so that browser's memory and turns stay the owner's), and every
 * later browser signing in with the link is that same client id. Only hashes of session ids are
 * written (mode 0600), so a copy of the file signs nobody in.
 */
export class WebSessions {
  readonly #path: string;
  readonly #now: () => number;
  #file: SessionsFile;

  constructor(options: { dataDir: string; now?: () => number }) {
    this.#path = join(options.dataDir, WEB_SESSIONS_FILE);
    this.#now = options.now ?? Date.now;
    this.#file = this.#read();
  }

  /** The person the owner link stands for, once a browser has signed in with it. */
  get ownerClientId(): string | undefined {
    return this.#file.ownerClientId;
  }

  /** Starts a session for the owner; `browserClientId` becomes the owner's id if there is none yet. */
  signInOwner(browserClientId: string): { sessionId: string; clientId: string } {
    const clientId = this.#file.ownerClientId ?? browserClientId;
    const sessionId = randomBytes(32).toString('base64url');
    this.#file = {
      ownerClientId: clientId,
      sessions: { ...this.#live(), [hashOf(sessionId)]: { clientId, createdAt: this.#now() } },
    };
    this.#write();
    return { sessionId, clientId };
  }

  /** The client id a session stands for; undefined when unknown or expired. */
  clientIdOf(sessionId: string): string | undefined {
    const session = this.#file.sessions[hashOf(sessionId)];
    if (session === undefined || this.#now() - session.createdAt > WEB_SESSION_LIFETIME_MS) return undefined;
    return session.clientId;
  }

  /** Sign out: the session stops working at once, on this gateway and after a restart. */
  end(sessionId: string): boolean {
    const hash = hashOf(sessionId);
    if (this.#file.sessions[hash] === undefined) return false;
    const { [hash]: _ended, ...rest } = this.#file.sessions;
    this.#file = { ...this.#file, sessions: rest };
    this.#write();
    return true;
  }

  #live(): SessionsFile['sessions'] {
    const now = this.#now();
    return Object.fromEntries(
      Object.entries(this.#file.sessions).filter(
        ([, session]) => now - session.createdAt <= WEB_SESSION_LIFETIME_MS,
      ),
    );
  }

  #read(): SessionsFile {
    let text: string;
    try {
      text = readFileSync(this.#path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { sessions: {} };
      throw new WebSessionsError(this.#path, error);
    }
    try {
      return fileSchema.parse(JSON.parse(text));
    } catch (error) {
      throw new WebSessionsError(this.#path, error);
    }
  }

  #write(): void {
    // Write then rename: a crash mid-write leaves the previous file, never half of one.
    const temporary = `${this.#path}.${process.pid}.tmp`;
    writeFileSync(temporary, `${JSON.stringify(this.#file)}\n`, { mode: 0o600 });
    renameSync(temporary, this.#path);
  }
}
