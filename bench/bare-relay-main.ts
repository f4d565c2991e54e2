// The bare relay (bench/bare-relay.ts) as a process of its own, as `pnpm bench:floor` starts it:
// `node bench/bare-relay-main.ts MODEL_BASE_URL MODEL [fetch|ai-sdk]` prints the relay's URL as its
// first line of standard output and runs until it is sent SIGTERM.
import { startBareRelay } from './bare-relay.ts';

const [modelBaseUrl, model, via = 'fetch'] = process.argv.slice(2);
if (!modelBaseUrl || !model || (via !== 'fetch' && via !== 'ai-sdk')) {
  process.stderr.write('usage: node bench/bare-relay-main.ts MODEL_BASE_URL MODEL [fetch|ai-sdk]\n');
  process.exit(2);
}
const relay = await startBareRelay({ modelBaseUrl, model, via });
process.stdout.write(`${relay.url}\n`);
process.once('SIGTERM', () => {
  void relay.close().then(() => process.exit(0));
});
