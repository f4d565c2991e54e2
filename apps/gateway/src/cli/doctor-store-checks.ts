import { constants } from 'node:fs';
import { access, readdir, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { ACCESS_SCHEMA_VERSION } from '@nexus/core';
import type { GatewayConfig } from '../config/gateway-config.ts';
import type { DoctorLine } from './doctor-line.ts';

/** The data directory, every SQLite store in it, the web token file and the access database. */
export async function checkStores(config: GatewayConfig): Promise<DoctorLine[]> {
  const { dataDir } = config;
  const info = await stat(dataDir).catch(() => undefined);
  if (!info) {
    const parentWritable = await access(dirname(dataDir), constants.W_OK).then(
      () => true,
      () => false,
    );
    return [
      parentWritable
        ? {
            status: 'ok',
            subject: 'data directory',
            message: `${dataDir} does not exist yet; it is created on first start`,
          }
        : {
            status: 'fail',
            subject: 'data directory',
            message: `${dataDir} does not exist and cannot be created (its parent is not writable)`,
            fix: 'create it and make it writable by the user running Nexus, or set NEXUS_DATA_DIR to a writable path',
          },
    ];
  }
  const lines: DoctorLine[] = [];
  const writable = await access(dataDir, constants.W_OK).then(
    () => true,
    () => false,
  );
  lines.push(
    writable
      ? { status: 'ok', subject: 'data directory', message: `${dataDir} is writable` }
      : {
          status: 'fail',
          subject: 'data directory',
          message: `${dataDir} is not writable`,
          fix: `make it writable by the user running Nexus (e.g. \`chown -R $(id -u) ${dataDir}\`), or set NEXUS_DATA_DIR elsewhere`,
        },
  );
  const files = (await readdir(dataDir)).filter((name) => name.endsWith('.sqlite')).sort();
  if (files.length === 0)
    lines.push({ status: 'ok', subject: 'stores', message: 'none yet; they are created on first start' });
  for (const file of files) lines.push(checkSqliteFile(join(dataDir, file)));
  if (files.includes('access.sqlite')) lines.push(...accessSummary(join(dataDir, 'access.sqlite')));
  lines.push(await checkWebToken(config));
  return lines;
}

function checkSqliteFile(path: string): DoctorLine {
  const subject = `store ${path}`;
  let database: DatabaseSync | undefined;
  try {
    database = new DatabaseSync(path, { readOnly: true });
    database.exec('PRAGMA busy_timeout = 2000');
    const check = database.prepare('PRAGMA quick_check').get() as { quick_check: string };
    const { user_version: version } = database.prepare('PRAGMA user_version').get() as {
      user_version: number;
    };
    if (check.quick_check !== 'ok') {
      return {
        status: 'fail',
        subject,
        message: `damaged (${check.quick_check})`,
        fix: `stop Nexus and restore ${path} from a backup; moving it away starts that store empty`,
      };
    }
    if (path.endsWith('access.sqlite') && version > ACCESS_SCHEMA_VERSION) {
      return {
        status: 'fail',
        subject,
        message: `written by a newer Nexus (schema ${version}, this one knows ${ACCESS_SCHEMA_VERSION})`,
        fix: 'upgrade Nexus to the version that wrote it',
      };
    }
    return { status: 'ok', subject, message: `readable, intact (schema ${version})` };
  } catch (error) {
    return {
      status: 'fail',
      subject,
      message: `cannot be read (${error instanceof Error ? error.message : String(error)})`,
      fix: `check its owner and permissions; if it is damaged, stop Nexus and restore ${path} from a backup`,
    };
  } finally {
    database?.close();
  }
}

function accessSummary(path: string): DoctorLine[] {
  const database = new DatabaseSync(path, { readOnly: true });
  try {
    const count = (sql: string, ...parameters: number[]) =>
      (database.prepare(sql).get(...parameters) as { count: number }).count;
    const pending = count(
      `SELECT COUNT(*) AS count FROM pairing_requests WHERE status = 'pending' AND expires_at > ?`,
      Date.now(),
    );
    const people = count('SELECT COUNT(*) AS count FROM people WHERE approved_at IS NOT NULL');
    return [
      pending > 0
        ? {
            status: 'warn',
            subject: 'access',
            message: `${pending} pairing request${pending === 1 ? '' : 's'} waiting for you`,
            fix: 'see them with `nexus pairing list`, then `nexus pairing approve CODE` or `nexus pairing reject CODE`',
          }
        : {
            status: 'ok',
            subject: 'access',
            message: `${people} approved ${people === 1 ? 'person' : 'people'}, no pairing requests waiting`,
          },
    ];
  } catch {
    return [];
  } finally {
    database.close();
  }
}

async function checkWebToken(config: GatewayConfig): Promise<DoctorLine> {
  if (config.web.token) return { status: 'ok', subject: 'web token', message: 'set by NEXUS_WEB_TOKEN' };
  const path = join(config.dataDir, 'web-token');
  const info = await stat(path).catch(() => undefined);
  if (!info)
    return { status: 'ok', subject: 'web token', message: `not generated yet; first start writes ${path}` };
  if ((info.mode & 0o077) !== 0) {
    return {
      status: 'warn',
      subject: 'web token',
      message: `${path} can be read by other users of this machine`,
      fix: `chmod 600 ${path}`,
    };
  }
  return { status: 'ok', subject: 'web token', message: `${path} (readable by its owner only)` };
}
