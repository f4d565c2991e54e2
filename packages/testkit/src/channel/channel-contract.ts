import {
  attachmentSchema,
  type ChannelAdapter,
  conversationRefOf,
  type IntakeResult,
  type IntentInput,
  type IntentSink,
  intentSchema,
  type MediaKind,
  type ReplyEvent,
  type ReplyMedia,
  type ReplyMediaKind,
} from '@nexus/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { makeOggOpusVoiceNote } from '../media/make-ogg-opus.ts';
import { makePng } from '../media/make-png.ts';

/**
 * A message a platform user sends; `group` puts it in a group, addressed to the assistant or not;
 * `media` adds one file of that kind (the text is its caption where the platform has captions).
 * The driver rejects a `media` kind its platform has no message for.
 */
export interface ContractMessage {
  text: string;
  group?: { mentioned: boolean };
  media?: MediaKind;
}

/** A started channel on its platform fake, as the contract suite drives it. */
export interface ChannelContractSubject {
  channel: ChannelAdapter;
  /** A platform user sends a message; the returned handle names it for `redeliver`. */
  send(message: ContractMessage): Promise<unknown>;
  /** The platform hands the same message over again (replay after resume, redelivered update). */
  redeliver(handle: unknown): Promise<void>;
  /** The texts people now see in a conversation from the assistant, in order, edits applied. */
  received(conversationId: string): string[];
  /** Edits of assistant messages the fake observed so far. */
  edits(): number;
  /** Typing indicators the fake observed so far. */
  typing(): number;
  /** Files (photos, audio, documents…) people now see in a conversation from the assistant. */
  files(conversationId: string): number;
  /**
   * The sender edits a message `send` returned the handle of; the returned handle names the edit
   * for `redeliver`. Absent when the platform reports no edits (`capabilities.revisions`).
   */
  edit?(handle: unknown, text: string): Promise<unknown>;
  /** The sender deletes the message; absent when the platform reports no deletes. */
  remove?(handle: unknown): Promise<void>;
  /** The fake drops the connection; absent when the channel has no connection to lose. */
  dropConnection?(): Promise<void>;
  /** While refused, the fake turns down the channel's sends to this conversation. */
  refuseSends?(conversationId: string, refuse: boolean): void;
  close(): Promise<void>;
}

export interface ChannelContractDriver {
  name: string;
  /** Starts the channel on its fake, handing `sink` to `channel.start`. */
  start(sink: IntentSink): Promise<ChannelContractSubject>;
  /** How long an expected intent or platform message may take. Default 10 s. */
  timeoutMs?: number;
}

async function waitUntil<T>(probe: () => T | undefined | false, timeoutMs: number, what: string): Promise<T> {
  const started = Date.now();
  for (;;) {
    const value = probe();
    if (value) return value;
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** A reply as core streams it: typing, the text in two deltas `pauseMs` apart, then the end. */
async function* streamed(text: string, pauseMs: number): AsyncIterable<ReplyEvent> {
  yield { type: 'typing' };
  yield { type: 'reply.start', replyId: 'contract' };
  const half = Math.floor(text.length / 2);
  for (const part of [text.slice(0, half), text.slice(half)]) {
    if (pauseMs > 0) await new Promise((resolve) => setTimeout(resolve, pauseMs));
    yield { type: 'reply.delta', replyId: 'contract', text: part };
  }
  yield { type: 'reply.end', replyId: 'contract', text };
}

/** A reply of about 1.6 × `limit` characters, most of it one fenced code block. */
function longReply(limit: number): { text: string; codeLines: string[] } {
  const codeLines: string[] = [];
  for (let index = 0; codeLines.join('\n').length < limit * 1.5; index += 1) {
    codeLines.push(`const value${index} = ${index} * 2;`);
  }
  return {
    text: `Here is the code:\n\n\`\`\`ts\n${codeLines.join('\n')}\n\`\`\`\n\nThat is all.`,
    codeLines,
  };
}

const REPLY_MEDIA_KINDS: readonly ReplyMediaKind[] = ['image', 'file', 'audio'];

/** One small, valid file of each reply media kind, as a tool would produce it. */
function sampleReplyMedia(kind: ReplyMediaKind): ReplyMedia {
  const bytes =
    kind === 'image'
      ? Buffer.from(makePng())
      : kind === 'audio'
        ? Buffer.from(makeOggOpusVoiceNote())
        : Buffer.from('month,sales\njan,10\nfeb,12\n');
  const [mimeType, name] =
    kind === 'image'
      ? ['image/png', 'chart.png']
      : kind === 'audio'
        ? ['audio/ogg', 'answer.ogg']
        : ['text/csv', 'sales.csv'];
  return { kind, mimeType, name, sizeBytes: bytes.byteLength, base64: bytes.toString('base64') };
}

/** A finished reply with one file after its text. */
async function* withFile(text: string, media: ReplyMedia): AsyncIterable<ReplyEvent> {
  yield { type: 'reply.start', replyId: 'contract-file' };
  yield { type: 'reply.delta', replyId: 'contract-file', text };
  yield { type: 'reply.media', replyId: 'contract-file', media };
  yield { type: 'reply.end', replyId: 'contract-file', text };
}

/**
 * The behaviour every ChannelAdapter shows on its platform fake: a valid Intent with stable ids,
 * no second intent for a redelivered message, long replies split at the platform limit without
 * breaking code fences, unaddressed group messages gated, intake after a dropped connection,
 * refused sends that settle without hanging, edits (and deletes) of a message as revisions of
 * its intent where the platform reports them, and every declared capability (edits, typing,
 * groups, media in and out, linking, message limit, revisions) matching what the fake observed.
 */
export function describeChannelContract(driver: ChannelContractDriver): void {
  const timeoutMs = driver.timeoutMs ?? 10_000;
  describe(`channel contract: ${driver.name}`, () => {
    let subject: ChannelContractSubject | undefined;
    let intents: IntentInput[] = [];
    let counter = 0;
    const unique = (label: string): string => {
      counter += 1;
      return `${label}-${Date.now().toString(36)}-${counter}`;
    };

    const start = async (): Promise<ChannelContractSubject> => {
      intents = [];
      const taken = new Set<string>();
      const sink: IntentSink = async (intent): Promise<IntakeResult> => {
        intents.push(intent);
        if (taken.has(intent.id)) return { status: 'duplicate' };
        taken.add(intent.id);
        return { status: 'accepted' };
      };
      subject = await driver.start(sink);
      return subject;
    };
    const intentWith = (token: string) =>
      waitUntil(
        () => intents.find((intent) => intent.text.includes(token)),
        timeoutMs,
        `an intent with "${token}"`,
      );
    const deliver = (channel: ChannelAdapter, intent: IntentInput, events: AsyncIterable<ReplyEvent>) =>
      channel.deliver({ conversation: conversationRefOf(intentSchema.parse(intent)), events });

    afterEach(async () => {
      await subject?.close();
      subject = undefined;
    });

    it('normalises a direct message to a valid Intent with stable ids', async () => {
      const { channel, send } = await start();
      const first = unique('hello');
      const second = unique('again');
      await send({ text: first });
      const one = await intentWith(first);
      await send({ text: second });
      const two = await intentWith(second);
      expect(intentSchema.safeParse(one).success).toBe(true);
      expect(one).toMatchObject({ channel: channel.name, conversation: { kind: 'direct' } });
      expect(one.text).toContain(first);
      expect(one.sender.platformId).not.toBe('');
      expect(two.conversation.id).toBe(one.conversation.id);
      expect(two.sender.platformId).toBe(one.sender.platformId);
      expect(two.id).not.toBe(one.id);
    });

    it('hands a redelivered platform message over under the same id only', async () => {
      const subjectNow = await start();
      const token = unique('once');
      const handle = await subjectNow.send({ text: token });
      const original = await intentWith(token);
      await subjectNow.redeliver(handle);
      const marker = unique('after');
      await subjectNow.send({ text: marker });
      await intentWith(marker);
      const copies = intents.filter((intent) => intent.text.includes(token));
      expect(copies.map((intent) => intent.id)).toEqual(copies.map(() => original.id));
    });

    it('splits a long reply at the platform limit without breaking code fences', async () => {
      const { channel, send, received } = await start();
      const token = unique('long');
      await send({ text: token });
      const intent = await intentWith(token);
      const limit = channel.capabilities.maxMessageChars;
      const { text, codeLines } = longReply(limit ?? 3000);
      await deliver(channel, intent, streamed(text, 0));
      const conversationId = intent.conversation.id;
      const expected = limit === undefined ? 1 : 2;
      const messages = await waitUntil(
        () => received(conversationId).length >= expected && received(conversationId),
        timeoutMs,
        'the reply on the platform',
      );
      if (limit !== undefined)
        for (const message of messages) expect(message.length).toBeLessThanOrEqual(limit);
      for (const message of messages) expect((message.match(/```/g) ?? []).length % 2).toBe(0);
      const shown = messages.join('\n');
      let from = 0;
      for (const line of codeLines) {
        const at = shown.indexOf(line, from);
        expect(at, `code line "${line}" in order`).toBeGreaterThanOrEqual(from);
        from = at + line.length;
      }
    });

    it('ignores an unaddressed group message and takes a mentioned one', async (context) => {
      const { channel, send } = await start();
      context.skip(!channel.capabilities.groups, `${channel.name} declares no groups (capabilities.groups)`);
      const unaddressed = unique('chatter');
      const mentioned = unique('question');
      await send({ text: unaddressed, group: { mentioned: false } });
      await send({ text: mentioned, group: { mentioned: true } });
      const taken = await intentWith(mentioned);
      expect(taken.conversation.kind).not.toBe('direct');
      expect(taken.mentionsAssistant).toBe(true);
      expect(intents.some((intent) => intent.text.includes(unaddressed))).toBe(false);
    });

    it('comes back after the platform drops the connection and takes a new message', async (context) => {
      const subjectNow = await start();
      context.skip(!subjectNow.dropConnection, `${driver.name} has no connection the fake can drop`);
      if (!subjectNow.dropConnection) return;
      const before = unique('before');
      await subjectNow.send({ text: before });
      await intentWith(before);
      await subjectNow.dropConnection();
      const after = unique('after-drop');
      await subjectNow.send({ text: after });
      await intentWith(after);
      await waitUntil(() => subjectNow.channel.health().status === 'up', timeoutMs, 'health up');
    });

    it('settles a delivery the platform refuses, and answers the next message once it accepts', async (context) => {
      const subjectNow = await start();
      context.skip(!subjectNow.refuseSends, `${driver.name}'s fake cannot refuse sends`);
      if (!subjectNow.refuseSends) return;
      const token = unique('refused');
      await subjectNow.send({ text: token });
      const intent = await intentWith(token);
      const conversationId = intent.conversation.id;
      subjectNow.refuseSends(conversationId, true);
      const outcome = await deliver(subjectNow.channel, intent, streamed('not shown', 0)).then(
        () => undefined,
        (error: unknown) => error,
      );
      if (outcome !== undefined) expect(outcome).toHaveProperty('code');
      expect(subjectNow.received(conversationId)).not.toContain('not shown');
      subjectNow.refuseSends(conversationId, false);
      // The person writes again (a Telegram user who unblocked the bot must), then gets answers.
      const again = unique('again');
      await subjectNow.send({ text: again });
      await deliver(subjectNow.channel, await intentWith(again), streamed('shown now', 0));
      await waitUntil(
        () => subjectNow.received(conversationId).includes('shown now'),
        timeoutMs,
        'the reply',
      );
    });

    it('declares the revisions the fake can make (capabilities.revisions)', async () => {
      const subjectNow = await start();
      const revisions = subjectNow.channel.capabilities.revisions ?? { edits: false, deletes: false };
      expect(Boolean(subjectNow.edit)).toBe(revisions.edits);
      expect(Boolean(subjectNow.remove)).toBe(revisions.deletes);
    });

    const editOnce = async (
      subjectNow: ChannelContractSubject,
      edit: NonNullable<ChannelContractSubject['edit']>,
    ) => {
      const token = unique('before-edit');
      const handle = await subjectNow.send({ text: token });
      const original = await intentWith(token);
      const changed = unique('after-edit');
      const editHandle = await edit(handle, changed);
      return { handle, original, changed, editHandle, revision: await intentWith(changed) };
    };

    it('hands an edit over as one revision of the original', async (context) => {
      const subjectNow = await start();
      context.skip(!subjectNow.edit, `${driver.name} reports no edits (capabilities.revisions.edits)`);
      if (!subjectNow.edit) return;
      const { original, changed, editHandle, revision } = await editOnce(subjectNow, subjectNow.edit);
      expect(intentSchema.safeParse(revision).success).toBe(true);
      expect(revision.revises).toEqual({ kind: 'edit', targetIntentId: original.id });
      expect(revision.id).not.toBe(original.id);
      expect(revision.conversation).toEqual(original.conversation);
      await subjectNow.redeliver(editHandle);
      const marker = unique('after');
      await subjectNow.send({ text: marker });
      await intentWith(marker);
      const copies = intents.filter((intent) => intent.text.includes(changed));
      expect(new Set(copies.map((intent) => intent.id))).toEqual(new Set([revision.id]));
    });

    it('hands a delete of an edited message over as a delete of the original', async (context) => {
      const subjectNow = await start();
      context.skip(
        !subjectNow.edit || !subjectNow.remove,
        `${driver.name} reports no edits or no deletes (capabilities.revisions)`,
      );
      if (!subjectNow.edit || !subjectNow.remove) return;
      const { handle, original } = await editOnce(subjectNow, subjectNow.edit);
      await subjectNow.remove(handle);
      const removal = await waitUntil(
        () => intents.find((intent) => intent.revises?.kind === 'delete'),
        timeoutMs,
        'a delete intent',
      );
      expect(removal).toMatchObject({ text: '', revises: { kind: 'delete', targetIntentId: original.id } });
      expect(intentSchema.safeParse(removal).success).toBe(true);
    });

    it('declares the capabilities the fake observes (edits, typing)', async () => {
      const { channel, send, edits, typing, received } = await start();
      const token = unique('stream');
      await send({ text: token });
      const intent = await intentWith(token);
      const editsBefore = edits();
      const typingBefore = typing();
      await deliver(channel, intent, streamed('streamed in two parts', 300));
      await waitUntil(
        () => received(intent.conversation.id).includes('streamed in two parts'),
        timeoutMs,
        'the streamed reply',
      );
      expect(edits() > editsBefore).toBe(channel.capabilities.edits);
      expect(typing() > typingBefore).toBe(channel.capabilities.typing);
    });

    it('hands over exactly the media kinds it declares, each as that kind (capabilities.mediaIn)', async () => {
      const subjectNow = await start();
      const declared = subjectNow.channel.capabilities.mediaIn;
      for (const kind of attachmentSchema.shape.kind.options) {
        const from = intents.length;
        const sent = await subjectNow.send({ text: unique(`with-${kind}`), media: kind }).then(
          () => true,
          // The driver cannot make this kind: the platform has no such message.
          () => false,
        );
        if (!sent) {
          expect(declared, `${kind}: the platform has none, yet it is declared`).not.toContain(kind);
          continue;
        }
        expect(declared, `${kind}: the platform sends it, so it must be declared`).toContain(kind);
        const intent = await waitUntil(
          () => intents.slice(from).find((candidate) => (candidate.attachments ?? []).length > 0),
          timeoutMs,
          `an intent with a ${kind}`,
        );
        expect(intentSchema.safeParse(intent).success).toBe(true);
        expect(
          (intent.attachments ?? []).map((attachment) => attachment.kind),
          `a ${kind} message`,
        ).toEqual([kind]);
      }
    });

    it('sends the reply file kinds it declares as platform files, and only those (capabilities.mediaOut)', async () => {
      const { channel, send, received, files } = await start();
      for (const kind of REPLY_MEDIA_KINDS) {
        // A message of its own per reply: a platform may treat a second delivery for one message
        // as a replay of the first (Discord's enforced nonce).
        const token = unique(`send-a-${kind}`);
        await send({ text: token });
        const intent = await intentWith(token);
        const conversationId = intent.conversation.id;
        const before = files(conversationId);
        const text = unique(`here-is-a-${kind}`);
        await deliver(channel, intent, withFile(text, sampleReplyMedia(kind)));
        await waitUntil(
          () => received(conversationId).some((shown) => shown.includes(text)),
          timeoutMs,
          `the text of the reply with a ${kind}`,
        );
        const declared = channel.capabilities.mediaOut.includes(kind);
        if (declared)
          await waitUntil(() => files(conversationId) > before, timeoutMs, `the ${kind} on the platform`);
        expect(files(conversationId) - before, `${kind} files the platform shows`).toBe(declared ? 1 : 0);
      }
    });

    it('offers a phone link exactly when it declares one (capabilities.linking)', async () => {
      const { channel } = await start();
      expect(typeof channel.linkState === 'function').toBe(channel.capabilities.linking === 'qr');
      if (channel.capabilities.linking === 'qr')
        expect(channel.linkState?.().status).toEqual(expect.any(String));
    });
  });
}
