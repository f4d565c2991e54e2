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
  sessions: z.record(
    z.string(),
    z.object({
      clientId: z.string().min(1).max(128),
      createdAt: z.number(),
      /** Set when signed in with an invite link: revoking it ends the session. */
      inviteId: z.string().optional(),
    }),
  ),
  invites: z
    .record(
      z.string(),
      z.object({
        name: z.string(),
        tokenHash: z.string(),
        createdAt: z.number(),
        revokedAt: z.number().optional(),
      }),
    )
    .default({}),
});

type SessionsFile = z.infer<typeof fileSchema>;

/** Who a session is: the owner, or the person an invite link was made for. */
export interface WebPerson {
  clientId: string;
  person: 'owner' | 'invited';
  /** The invite's id and name, for an invited person. */
  inviteId?: string;
  name?: string;
}

export interface WebInvite {
  inviteId: string;
  name: string;
  /** The person's web client id: `invite-<inviteId>`, so `web:invite-<inviteId>` is their user id. */
  clientId: string;
  createdAt: number;
  revoked: boolean;
}

/** The web client id of the person an invite link was made for. */
export const inviteClientId = (inviteId: string) => `invite-${inviteId}`;

export class WebSessionsError extends Error {
  readonly code = 'web_sessions_unreadable';
  readonly retryable = false;

  constructor(path: string, cause: unknown) {
    super(`${path} cannot be read as web sessions; move it away to sign every browser out`, { cause });
    this.name = 'WebSessionsError';
  }
}

/** The key a session is stored under (and its sockets are known by): never the id itself. */
export const hashOf = (sessionId: string) => createHash('sha256').update(sessionId, 'utf8').digest('hex');

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
    this.#file = { ...this.#file, ownerClientId: clientId };
    return { sessionId: this.#start(clientId), clientId };
  }

  /**
   * Starts a session for the person an invite link was made for: `unknown` for a token no invite
   * has, `revoked` for one the owner revoked.
   */
  signInInvited(token: string): { sessionId: string; person: WebPerson } | 'unknown' | 'revoked' {
    const hash = hashOf(token);
    const found = Object.entries(this.#file.invites).find(([, invite]) => invite.tokenHash === hash);
    if (found === undefined) return 'unknown';
    const [inviteId, invite] = found;
    if (invite.revokedAt !== undefined) return 'revoked';
    const clientId = inviteClientId(inviteId);
    return {
      sessionId: this.#start(clientId, inviteId),
      person: { clientId, person: 'invited', inviteId, name: invite.name },
    };
  }

  /** Who a session stands for; undefined when unknown, expired or its invite revoked. */
  personOf(sessionId: string): WebPerson | undefined {
    const session = this.#file.sessions[hashOf(sessionId)];
    if (session === undefined || this.#now() - session.createdAt > WEB_SESSION_LIFETIME_MS) return undefined;
    if (session.inviteId === undefined) return { clientId: session.clientId, person: 'owner' };
    const invite = this.#file.invites[session.inviteId];
    if (invite === undefined || invite.revokedAt !== undefined) return undefined;
    return { clientId: session.clientId, person: 'invited', inviteId: session.inviteId, name: invite.name };
  }

  /** A new invite link for one person; the token is returned once and only its hash is kept. */
  createInvite(name: string): { invite: WebInvite; token: string } {
    const inviteId = randomBytes(9).toString('base64url');
    const token = randomBytes(24).toString('base64url');
    const createdAt = this.#now();
    this.#file = {
      ...this.#file,
      invites: { ...this.#file.invites, [inviteId]: { name, tokenHash: hashOf(token), createdAt } },
    };
    this.#write();
    return {
      invite: { inviteId, name, clientId: inviteClientId(inviteId), createdAt, revoked: false },
      token,
    };
  }

  listInvites(): WebInvite[] {
    return Object.entries(this.#file.invites)
      .map(([inviteId, invite]) => ({
        inviteId,
        name: invite.name,
        clientId: inviteClientId(inviteId),
        createdAt: invite.createdAt,
        revoked: invite.revokedAt !== undefined,
      }))
      .sort((a, b) => b.createdAt - a.createdAt);
  }

  /** Refuses the link from now on and ends every session signed in with it. False if unknown. */
  revokeInvite(inviteId: string): boolean {
    const invite = this.#file.invites[inviteId];
    if (invite === undefined) return false;
    const sessions = Object.fromEntries(
      Object.entries(this.#live()).filter(([, session]) => session.inviteId !== inviteId),
    );
    this.#file = {
      ...this.#file,
      sessions,
      invites: {
        ...this.#file.invites,
        [inviteId]: { ...invite, revokedAt: invite.revokedAt ?? this.#now() },
      },
    };
    this.#write();
    return true;
  }

  #start(clientId: string, inviteId?: string): string {
    const sessionId = randomBytes(32).toString('base64url');
    const session = { clientId, createdAt: this.#now(), ...(inviteId === undefined ? {} : { inviteId }) };
    this.#file = { ...this.#file, sessions: { ...this.#live(), [hashOf(sessionId)]: session } };
    this.#write();
    return sessionId;
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
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { sessions: {}, invites: {} };
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
