import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DatabaseSync } from 'node:sqlite';
import { Curve, initAuthCreds, proto } from '@whiskeysockets/baileys';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openWhatsAppDatabase } from './open-whatsapp-database.ts';
import { createSqliteAuthState } from './sqlite-auth-state.ts';

let directory: string;
let path: string;
const opened: DatabaseSync[] = [];

function open() {
  const database = openWhatsAppDatabase(path);
  opened.push(database);
  return { database, auth: createSqliteAuthState({ database }) };
}

beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), 'nexus-wa-auth-'));
  path = join(directory, 'auth.sqlite');
});

afterEach(() => {
  for (const database of opened.splice(0)) if (database.isOpen) database.close();
  rmSync(directory, { recursive: true, force: true });
});

describe('createSqliteAuthState', () => {
  it('starts with fresh creds when the file is new', () => {
    const { auth } = open();
    expect(auth.state.creds.registered).toBe(false);
    expect(auth.state.creds.noiseKey.private).toHaveLength(32);
  });

  it('restores creds with their binary keys after a restart', () => {
    const first = open();
    first.auth.state.creds.me = { id: '15550000001:7@s.whatsapp.net', lid: '210000000001:7@lid' };
    first.auth.state.creds.registered = true;
    first.auth.saveCreds();
    const original = first.auth.state.creds;
    first.database.close();

    const second = open();
    const restored = second.auth.state.creds;
    expect(restored.registered).toBe(true);
    expect(restored.me?.lid).toBe('210000000001:7@lid');
    expect(Buffer.isBuffer(restored.noiseKey.private)).toBe(true);
    expect(Buffer.compare(restored.noiseKey.private, Buffer.from(original.noiseKey.private))).toBe(0);
    expect(
      Buffer.compare(restored.signedIdentityKey.public, Buffer.from(original.signedIdentityKey.public)),
    ).toBe(0);
    expect(restored.signedPreKey.signature).toHaveLength(64);
    expect(restored.registrationId).toBe(original.registrationId);
  });

  it('persists signal keys before set returns, and null deletes them', async () => {
    const first = open();
    const preKey = Curve.generateKeyPair();
    await first.auth.state.keys.set({
      'pre-key': { '1': preKey, '2': Curve.generateKeyPair() },
      session: { 'alice.0': new Uint8Array([1, 2, 3]) },
      'lid-mapping': { '15550000002': '210000000002' },
      'device-list': { '15550000002': ['0', '3'] },
    });
    await first.auth.state.keys.set({ 'pre-key': { '2': null } });
    first.database.close();

    const second = open();
    const preKeys = await second.auth.state.keys.get('pre-key', ['1', '2']);
    expect(Object.keys(preKeys)).toEqual(['1']);
    expect(Buffer.compare(Buffer.from(preKeys['1']?.private ?? []), Buffer.from(preKey.private))).toBe(0);
    const sessions = await second.auth.state.keys.get('session', ['alice.0']);
    expect([...(sessions['alice.0'] ?? [])]).toEqual([1, 2, 3]);
    expect(await second.auth.state.keys.get('lid-mapping', ['15550000002'])).toEqual({
      '15550000002': '210000000002',
    });
    expect(await second.auth.state.keys.get('device-list', ['15550000002'])).toEqual({
      '15550000002': ['0', '3'],
    });
  });

  it('revives app-state-sync keys as protobuf objects', async () => {
    const first = open();
    const keyData = proto.Message.AppStateSyncKeyData.create({
      keyData: new Uint8Array(32).fill(7),
      timestamp: 1_700_000_000,
    });
    await first.auth.state.keys.set({ 'app-state-sync-key': { AAAA: keyData } });
    first.database.close();

    const second = open();
    const found = await second.auth.state.keys.get('app-state-sync-key', ['AAAA']);
    expect(found.AAAA).toBeInstanceOf(proto.Message.AppStateSyncKeyData);
    expect([...(found.AAAA?.keyData ?? [])]).toEqual(new Array(32).fill(7));
  });

  it('clear forgets creds and keys so the next start links anew', async () => {
    const first = open();
    first.auth.state.creds.registered = true;
    first.auth.saveCreds();
    await first.auth.state.keys.set({ 'pre-key': { '1': Curve.generateKeyPair() } });
    await first.auth.clear();
    first.database.close();

    const second = open();
    expect(second.auth.state.creds.registered).toBe(false);
    expect(await second.auth.state.keys.get('pre-key', ['1'])).toEqual({});
    expect(initAuthCreds().registered).toBe(false);
  });
});
