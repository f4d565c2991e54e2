// What the stack test reads from a running compose project, each through Docker (exec, stats, a
// throw-away container on the project's own network), never through a port it publishes.
import type { ComposeProject } from './compose-project.ts';
import { REPO } from './compose-project.ts';
import { DEFAULT_SECRETS_GID } from './stack-secrets.ts';

export interface ModelRequest {
  body: { messages: Array<{ role: string; content: unknown }> };
  receivedAt: number;
}

/** Runs a one-line script with the container's own Node (every Nexus image and stand-in has it). */
async function nodeEval(project: ComposeProject, container: string, script: string): Promise<string> {
  return project.exec(container, ['node', '-e', script]);
}

/** The chat requests the scripted model server received, in order. */
export async function modelRequests(project: ComposeProject): Promise<ModelRequest[]> {
  const [model] = await project.containersOf('model');
  const text = await nodeEval(
    project,
    model!,
    "fetch('http://127.0.0.1:8001/requests').then(r=>r.text()).then(t=>process.stdout.write(t))",
  );
  return JSON.parse(text) as ModelRequest[];
}

export async function setModelLatency(project: ComposeProject, ms: number): Promise<void> {
  const [model] = await project.containersOf('model');
  await nodeEval(project, model!, `fetch('http://127.0.0.1:8001/latency?ms=${ms}',{method:'POST'})`);
}

/** One Prometheus counter (summed over its label sets) from a Nexus container's /metrics. */
export async function metric(project: ComposeProject, container: string, name: string): Promise<number> {
  const text = await nodeEval(
    project,
    container,
    "fetch('http://127.0.0.1:8787/metrics').then(r=>r.text()).then(t=>process.stdout.write(t))",
  );
  return text
    .split('\n')
    .filter((line) => line.startsWith(name))
    .reduce((sum, line) => sum + Number(line.split(' ').at(-1)), 0);
}

/** Resident memory per container from `docker stats`, in MiB. */
export async function residentMemory(project: ComposeProject): Promise<Record<string, number>> {
  const names = (await project.containers()).map((container) => container.name);
  const text = await project.docker([
    'stats',
    '--no-stream',
    '--format',
    '{{.Name}} {{.MemUsage}}',
    ...names,
  ]);
  const units: Record<string, number> = { B: 1 / 1048576, KiB: 1 / 1024, MiB: 1, GiB: 1024 };
  return Object.fromEntries(
    text
      .trim()
      .split('\n')
      .map((line) => {
        const [name, usage] = line.split(' ');
        const match = /^([\d.]+)([KMG]?i?B)$/u.exec(usage ?? '');
        return [
          name!.replace(`${project.name}_`, ''),
          match ? Number(match[1]) * (units[match[2]!] ?? 1) : NaN,
        ];
      }),
  );
}

/** Live Redis keys and Qdrant points holding `marker`, read from inside the stack's network. */
export async function findMarker(
  project: ComposeProject,
  marker: string,
): Promise<{ redis: string[]; qdrant: string[] }> {
  const secrets = project.env.NEXUS_SECRETS_DIR!;
  const text = await project.docker([
    'run',
    '--rm',
    '--network',
    `${project.name}_default`,
    '-v',
    `${REPO}:/repo:ro`,
    '-v',
    `${secrets}/redis-password:/run/secrets/redis-password:ro`,
    '-v',
    `${secrets}/qdrant-api-key:/run/secrets/qdrant-api-key:ro`,
    // The secret files are root:<secrets group> 0440, read through the group like the services do.
    '--group-add',
    String(DEFAULT_SECRETS_GID),
    'nexus-ci/stand-ins:24',
    'node',
    'tests/stack/docker/find-marker.ts',
    marker,
  ]);
  return JSON.parse(text) as { redis: string[]; qdrant: string[] };
}

/** Files of a named volume of the project that contain `marker` (empty when none does). */
export async function volumeFilesContaining(
  project: ComposeProject,
  volume: string,
  marker: string,
): Promise<string[]> {
  const text = await project.docker([
    'run',
    '--rm',
    '--network',
    'none',
    '-v',
    `${project.name}_${volume}:/volume:ro`,
    'nexus-ci/debian:bookworm',
    'sh',
    '-c',
    `grep -rlaF -- "$0" /volume || true`,
    marker,
  ]);
  return text.split('\n').filter(Boolean);
}

/**
 * One call to the memory service's HTTP API from inside its own container, with the key it reads
 * from its secret (`GET /health` needs none): the JSON it answers.
 */
export async function memoryServiceCall(
  project: ComposeProject,
  path: string,
  body?: unknown,
): Promise<unknown> {
  const [memory] = await project.containersOf('memory');
  const request = body === undefined ? {} : { method: 'POST', body: JSON.stringify(body) };
  const script = `const key=require('node:fs').readFileSync('/run/secrets/memory-api-key','utf8').trim();
fetch('http://127.0.0.1:8787${path}',{...${JSON.stringify(request)},headers:{'x-api-key':key,'content-type':'application/json'}})
.then(r=>r.text()).then(t=>process.stdout.write(t))`;
  return JSON.parse(await project.exec(memory!, ['node', '-e', script]));
}
