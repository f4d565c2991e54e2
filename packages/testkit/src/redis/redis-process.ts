// Not a stand-in: the machine's real redis-server, started by a test on its own port and
// directory, so the test can SIGKILL, pause and restart it without touching the Redis that other
// tests share.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../free-port.ts';

export class RedisProcess {
  private child: ChildProcess | undefined;
  private exited: Promise<void> = Promise.resolve();

  readonly port: number;
  private readonly dir: string;

  private constructor(port: number, dir: string) {
    this.port = port;
    this.dir = dir;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  /**
   * Starts one with the persistence an operator would run a queue on: the append-only file,
   * fsynced on every write, so a SIGKILLed Redis comes back with every acknowledged job.
   */
  static async start(): Promise<RedisProcess> {
    const redis = new RedisProcess(await freePort(), await mkdtemp(join(tmpdir(), 'nexus-redis-')));
    await redis.restart();
    return redis;
  }

  /**
   * Starts the server again on the same port and data directory; resolves once it accepts
   * connections. `empty`: its data is deleted first, as when Redis ran without persistence.
   */
  async restart(options: { empty?: boolean } = {}): Promise<void> {
    if (options.empty) {
      await rm(this.dir, { recursive: true, force: true });
      await mkdir(this.dir, { recursive: true });
    }
    const child = spawn(
      'redis-server',
      [
        '--port',
        String(this.port),
        '--bind',
        '127.0.0.1',
        '--dir',
        this.dir,
        '--save',
        '',
        '--appendonly',
        'yes',
        '--appendfsync',
        'always',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    this.child = child;
    this.exited = new Promise((resolve) => child.once('exit', () => resolve()));
    const output: string[] = [];
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`redis-server did not start:\n${output.join('')}`)),
        20_000,
      );
      child.stdout?.setEncoding('utf8');
      child.stdout?.on('data', (chunk: string) => {
        output.push(chunk);
        if (output.join('').includes('Ready to accept connections')) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`redis-server exited with ${code}:\n${output.join('')}`));
      });
    });
  }

  /** SIGKILL: no shutdown save, connections cut as by a crash. */
  async kill(): Promise<void> {
    this.child?.kill('SIGKILL');
    await this.exited;
  }

  pause(): void {
    this.child?.kill('SIGSTOP');
  }

  resume(): void {
    this.child?.kill('SIGCONT');
  }

  async close(): Promise<void> {
    this.resume();
    await this.kill();
    await rm(this.dir, { recursive: true, force: true });
  }
}
