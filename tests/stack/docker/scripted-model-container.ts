// The scripted OpenAI-compatible model server as a container of the stack test (the `model`
// service of compose.test.yml): chat turns get a fixed reply, extraction and memory decisions the
// memory-aware answers the process-level stack tests use. The test reads the request log through
// `docker exec` on a second port that is never published: GET /requests (chat requests, in order).
import { createServer } from 'node:http';
import { startScriptedModelServer } from '@nexus/testkit/llm';
import { memoryAwareResponder } from '../../../apps/gateway/src/testing/memory-test-support.ts';

const port = Number(process.env.MODEL_PORT ?? 8000);
const logPort = Number(process.env.MODEL_LOG_PORT ?? 8001);
const model = await startScriptedModelServer({ host: '0.0.0.0', port });
model.setResponder(memoryAwareResponder);

const log = createServer((request, response) => {
  if (request.url !== '/requests') {
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
