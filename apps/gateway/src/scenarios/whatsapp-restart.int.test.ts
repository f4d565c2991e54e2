import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { type ScriptedModelServer, startScriptedModelServer } from '@nexus/testkit/llm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BURST_RATE_LIMITS } from '../testing/platform-burst.ts';
import {
  answerWithMarkers,
  createRestartDataDir,
  messageMarker,
  printRestartCounts,
  ReplyTally,
  type RestartSignal,
  restartTestEnv,
} from '../testing/restart-harness.ts';

const CHILD = fileURLToPath(new URL('../testing/whatsapp-gateway-child.ts', import.meta.url));
const MESSAGES = 100;
const PEOPLE = 20;

interface Outgoing {
  id: string;
  from: string;
  text: string;
  at: number;
}

/**
 * WhatsApp's side, in the test process so it outlives the gateway: a message sent to the linked
 * device stays WhatsApp's to deliver until the device sends its delivery receipt (the adapter
 * sends it once the message is stored); a message without a receipt when the device goes away,
 * and those that arrive while none is connected, come as the offline batch (`append`) of the
 * next connection.
 */
/** A send to a device that just died (EPIPE): the message has no receipt, so it is sent again. */
const ignoreDeadDevice = () => {};

class WhatsAppServerStandIn {
  readonly replies: string[] = [];
  /** Messages delivered more than once (sent again for want of a receipt). */
  redelivered = 0;
  #device: ChildProcess | undefined;
  #open = false;
  #waiting: Outgoing[] = [];
  /** Sent to the current device, no receipt yet, in the order sent. */
  #unreceipted = new Map<string, Outgoing>();

  attach(device: ChildProcess): Promise<void> {
    this.#device = device;
    this.#open = false;
    return new Promise((resolve) => {
      device.on('message', (message: { type: string; text?: string; ids?: string[] }) => {
        if (message.type === 'sent') this.replies.push(message.text ?? '');
        if (message.type === 'receipt') for (const id of message.ids ?? []) this.#unreceipted.delete(id);
        if (message.type === 'open') {
          this.#open = true;
          const offline = this.#waiting.splice(0);
          for (const entry of offline) this.#unreceipted.set(entry.id, entry);
          if (offline.length > 0)
            device.send({ type: 'receive', upsert: 'append', messages: offline }, ignoreDeadDevice);
          resolve();
        }
      });
      device.once('exit', () => {
        if (this.#device !== device) return;
        this.#open = false;
        // What the device never confirmed goes first in the next offline batch, as sent.
        const unconfirmed = [...this.#unreceipted.values()];
        this.redelivered += unconfirmed.length;
        this.#waiting = [...unconfirmed, ...this.#waiting];
        this.#unreceipted.clear();
      });
    });
  }

  deliver(message: Outgoing): void {
    const device = this.#device;
    if (this.#open && device?.connected && device.exitCode === null && device.signalCode === null) {
      this.#unreceipted.set(message.id, message);
      device.send({ type: 'receive', upsert: 'notify', messages: [message] }, ignoreDeadDevice);
    } else {
      this.#waiting.push(message);
    }
  }
}

let model: ScriptedModelServer;
let dataDir: Awaited<ReturnType<typeof createRestartDataDir>>;
let device: ChildProcess | undefined;

beforeEach(async () => {
  model = await startScriptedModelServer();
  answerWithMarkers(model);
  dataDir = await createRestartDataDir();
});
afterEach(async () => {
  if (device && device.exitCode === null && device.signalCode === null) {
    device.kill('SIGKILL');
    await new Promise((resolve) => device?.once('exit', resolve));
  }
  device = undefined;
  await model.close();
  await dataDir.remove();
});

function startDevice(env: Record<string, string>): ChildProcess {
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !key.startsWith('NEXUS_')),
  );
  const child = fork(CHILD, [], {
    env: { ...inherited, NEXUS_HOST: '127.0.0.1', NEXUS_PORT: '0', NEXUS_LOG_PRETTY: 'false', ...env },
    stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
  });
  return child;
}

function exited(child: ChildProcess): Promise<number | string> {
  if (child.exitCode !== null || child.signalCode !== null)
    return Promise.resolve(child.exitCode ?? child.signalCode ?? '');
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')));
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// SIGKILL: before the Baileys patch (pnpm-workspace.yaml) the receipt went before the adapter's
// write and a kill in between lost the message (95 of 100 answered, 2026-11-25); now the receipt
// follows the write, and what had none when the process died comes again at the next connection.
describe.each<RestartSignal>(['SIGTERM', 'SIGKILL'])('WhatsApp burst with a %s in the middle', (signal) => {
  it('answers every message after the restart, exactly once after a SIGTERM', {
    timeout: 240_000,
  }, async () => {
    const label = `wa${signal === 'SIGTERM' ? 't' : 'k'}`;
    const markers = Array.from({ length: MESSAGES }, (_, index) => messageMarker(label, index));
    const env = restartTestEnv({
      model,
      dataDir: dataDir.path,
      env: { NEXUS_WHATSAPP_ENABLED: 'true', NEXUS_WHATSAPP_DM_POLICY: 'open', ...BURST_RATE_LIMITS },
    });
    const server = new WhatsAppServerStandIn();
    const tally = () => {
      const counting = new ReplyTally(markers);
      for (const text of server.replies) counting.record(text);
      return counting;
    };
    const message = (index: number): Outgoing => ({
      id: `3EB0${label.toUpperCase()}${String(index).padStart(4, '0')}`,
      from: `3100000010${String(index % PEOPLE).padStart(2, '0')}@lid`,
      text: `please repeat ${markers[index]}`,
      at: Math.floor(Date.now() / 1000),
    });

    device = startDevice(env);
    await server.attach(device);
    for (let index = 0; index < MESSAGES / 2; index += 1) {
      server.deliver(message(index));
      await pause(10);
    }
    const deadline = Date.now() + 30_000;
    while (tally().answeredCount() < PEOPLE && Date.now() < deadline) await pause(5);
    const answeredBeforeSignal = tally().answeredCount();
    const unansweredAtSignal = new Set(tally().counts().missing);
    const first = device;
    first.kill(signal);
    // The rest of the burst reaches WhatsApp while the gateway is stopping or gone.
    for (let index = MESSAGES / 2; index < MESSAGES; index += 1) {
      server.deliver(message(index));
      await pause(5);
    }
    const exit = await exited(first);
    device = startDevice(env);
    await server.attach(device);
    // One send per second per account (`sendPacingMs`, against WhatsApp's spam detection): the
    // 100 replies alone take 100 s.
    const finish = Date.now() + 150_000;
    while (tally().answeredCount() < MESSAGES && Date.now() < finish) await pause(100);
    await pause(1_500);
    const counts = tally().counts();
    printRestartCounts('whatsapp', signal, counts, {
      exit,
      answeredBeforeSignal,
      redelivered: server.redelivered,
    });
    expect(counts.missing).toEqual([]);
    expect(counts.answered).toBe(MESSAGES);
    if (signal === 'SIGTERM') {
      expect(counts.duplicates).toEqual([]);
    } else {
      // Replies are at least once across a hard kill: the one reply being sent as the process
      // died (sends are serial, one a second) may be sent again when core replays its turn. A
      // message answered twice for any other reason (taken in twice) fails here.
      expect(counts.duplicates.length).toBeLessThanOrEqual(1);
      expect(counts.duplicates.filter((marker) => unansweredAtSignal.has(marker))).toEqual([]);
    }
  });
});
