// One docker-compose project of the stack test: docker-compose.yml plus compose.test.yml under a
// project name of its own, so its containers, network and volumes are its alone and `down()`
// removes every one of them. Debian 12's docker-compose (v1) runs it; Docker's own CLI from
// Debian's docker.io answers inspect/exec/kill.
import { execFile, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
export const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const DOCKER = '/usr/bin/docker';
const COMPOSE_FILES = ['-f', `${REPO}docker-compose.yml`, '-f', `${REPO}tests/stack/docker/compose.test.yml`];

export interface ContainerState {
  name: string;
  service: string;
  status: string;
  health: string | undefined;
}

export class ComposeProject {
  readonly name: string;
  readonly env: Record<string, string>;

  constructor(name: string, env: Record<string, string>) {
    this.name = name;
    this.env = env;
  }

  /** `docker-compose -p NAME -f … ARGS`; rejects with compose's stderr when it fails. */
  async compose(args: string[], timeoutMs = 180_000): Promise<string> {
    try {
      const { stdout } = await run('docker-compose', ['-p', this.name, ...COMPOSE_FILES, ...args], {
        cwd: REPO,
        env: { ...process.env, ...this.env },
        timeout: timeoutMs,
        maxBuffer: 64 * 1024 * 1024,
      });
      return stdout;
    } catch (error) {
      const failed = error as Error & { stderr?: string };
      throw new Error(`docker-compose ${args.join(' ')} failed: ${failed.stderr ?? failed.message}`);
    }
  }

  async docker(args: string[], timeoutMs = 60_000): Promise<string> {
    try {
      const { stdout } = await run(DOCKER, args, { timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 });
      return stdout;
    } catch (error) {
      const failed = error as Error & { stdout?: string; stderr?: string };
      const output = `${failed.stdout ?? ''}${failed.stderr ?? ''}` || failed.message;
      throw new Error(`docker ${args.join(' ')} failed: ${output}`);
    }
  }

  /** Every container of the project, running or not, with its health. */
  async containers(): Promise<ContainerState[]> {
    const ids = (
      await this.docker(['ps', '-aq', '--filter', `label=com.docker.compose.project=${this.name}`])
    )
      .split('\n')
      .filter(Boolean);
    if (ids.length === 0) return [];
    const inspected = JSON.parse(await this.docker(['inspect', ...ids])) as Array<{
      Name: string;
      Config: { Labels: Record<string, string> };
      State: { Status: string; Health?: { Status: string } };
    }>;
    return inspected.map((container) => ({
      name: container.Name.replace(/^\//, ''),
      service: container.Config.Labels['com.docker.compose.service'] ?? '',
      status: container.State.Status,
      health: container.State.Health?.Status,
    }));
  }

  /** The container names of one service, in name order. */
  async containersOf(service: string): Promise<string[]> {
    return (await this.containers())
      .filter((container) => container.service === service)
      .map((container) => container.name)
      .sort();
  }

  /** Waits until every running container of the project reports `healthy`; returns the wait. */
  async waitHealthy(expected: number, timeoutMs = 240_000): Promise<number> {
    const started = performance.now();
    let last: ContainerState[] = [];
    while (performance.now() - started < timeoutMs) {
      last = await this.containers();
      const healthy = last.filter((container) => container.health === 'healthy');
      if (healthy.length === expected && last.every((container) => container.status === 'running'))
        return performance.now() - started;
      if (last.some((c) => c.health === 'unhealthy' || c.status === 'exited' || c.status === 'restarting')) {
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    const states = last.map((c) => `${c.service}: ${c.status}/${c.health ?? 'no healthcheck'}`).join(', ');
    throw new Error(`stack not healthy (${states})\n${await this.logTail()}`);
  }

  async exec(container: string, command: string[]): Promise<string> {
    return this.docker(['exec', container, ...command]);
  }

  /**
   * `command` in `container` with its stdin open: `ready` resolves on its first line of output,
   * `go()` writes a line to its stdin, `output` is what it printed after that first line. Lets
   * several containers start a step at one moment, however long each `docker exec` takes to start.
   */
  execOnSignal(
    container: string,
    command: string[],
  ): { ready: Promise<void>; go(): void; output: Promise<string> } {
    const child = spawn(DOCKER, ['exec', '-i', container, ...command], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let markReady = () => {};
    const ready = new Promise<void>((resolve) => {
      markReady = resolve;
    });
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
      if (stdout.includes('\n')) markReady();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    const output = new Promise<string>((resolve, reject) => {
      child.once('error', reject);
      child.once('close', (code) => {
        markReady();
        if (code === 0) resolve(stdout.slice(stdout.indexOf('\n') + 1));
        else reject(new Error(`docker exec ${container} exited ${code}: ${stderr}`));
      });
    });
    return { ready, go: () => child.stdin.end('go\n'), output };
  }

  /** The last lines of every service's log, for failure messages. */
  async logTail(lines = 25): Promise<string> {
    return this.compose(['logs', '--no-color', '--tail', String(lines)]).catch(
      (error: Error) => error.message,
    );
  }

  /** Removes the project's containers, networks and volumes; never throws. */
  async down(): Promise<void> {
    await this.compose([
      '--profile',
      'workers',
      'down',
      '--volumes',
      '--remove-orphans',
      '--timeout',
      '5',
    ]).catch((error: Error) => process.stderr.write(`${error.message}\n`));
  }
}
