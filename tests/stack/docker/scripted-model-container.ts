// The scripted OpenAI-compatible model server as a container of the stack test (the `model`
// service of compose.test.yml): chat turns get a fixed reply, extraction and memory decisions the
// memory-aware answers the process-level stack tests use. The test reads the request log through
// `docker exec` on a second port that is never published: GET /requests (chat requests, in
// order), POST /latency?ms=N (delay every answer, so a burst keeps several workers busy).
import { createServer } from 'node:http';
import type { ChatCompletionRequest } from '@nexus/testkit/llm';
import { startScriptedModelServer } from '@nexus/testkit/llm';
import { isExtraction, memoryAwareResponder } from '../../../apps/gateway/src/testing/memory-test-support.ts';

const port = Number(process.env.MODEL_PORT ?? 8000);
const logPort = Number(process.env.MODEL_LOG_PORT ?? 8001);
const model = await startScriptedModelServer({ host: '0.0.0.0', port });
// Besides the fixed table of memoryAwareResponder, "Remember: X" is extracted as the fact X, so the
// test can plant a marker of its own in memory.
model.setResponder((request: ChatCompletionRequest) => {
  const prompt = String(request.messages.findLast((message) => message.role === 'user')?.content ?? '');
  const planted = /wrote:\n<<<\nRemember: (.+)\n>>>/u.exec(prompt)?.[1];
  if (isExtraction(request) && planted) {
    const facts = [{ content: planted, category: 'fact', source: 'user_explicit' }];
    return { text: JSON.stringify({ facts }) };
  }
  return memoryAwareResponder(request);
});

const log = createServer((request, response) => {
  const url = new URL(request.url ?? '/', 'http://log.local');
  if (request.method === 'POST' && url.pathname === '/latency') {
    model.setLatency(Number(url.searchParams.get('ms') ?? 0));
    response.writeHead(204).end();
    return;
  }
  if (url.pathname !== '/requests') {
    response.writeHead(404).end();
    return;
  }
  const body = JSON.stringify(model.chatRequests().map(({ body, receivedAt }) => ({ body, receivedAt })));
  response.writeHead(200, { 'content-type': 'application/json' }).end(body);
});
log.listen(logPort, '127.0.0.1');
process.stdout.write(`scripted model server on ${model.baseUrl}, request log on 127.0.0.1:${logPort}\n`);

const stop = () => {
  log.close();
  model.close().then(() => process.exit(0));
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
