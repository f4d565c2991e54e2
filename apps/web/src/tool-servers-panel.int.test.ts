import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { RunningGateway } from '@nexus/gateway';
import { launchBrowser, newPhonePage } from '@nexus/testkit/browser';
import { TEST_MCP_STDIO_SCRIPT } from '@nexus/testkit/mcp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildWebClientForTest, startWebTestGateway } from './testing/web-test-gateway.ts';

// The Channels panel lists the MCP tool servers beside the channels: one that answers, with its
// tools, and one that cannot start, as down with the reason.

let workDir: string;
let browser: Awaited<ReturnType<typeof launchBrowser>>;
let gateway: RunningGateway;

beforeAll(async () => {
  const built = await buildWebClientForTest('tool-servers-panel');
  workDir = built.workDir;
  const webDistDir = built.webDistDir;
  browser = await launchBrowser();
  gateway = await startWebTestGateway({
    webDistDir,
    dataDir: join(workDir, 'data'),
    env: {
      NEXUS_MCP_SERVERS: JSON.stringify([
        {
          name: 'shop',
          transport: 'stdio',
          command: process.execPath,
          args: [TEST_MCP_STDIO_SCRIPT],
          tools: ['lookup_order'],
        },
        { name: 'broken', transport: 'stdio', command: join(workDir, 'no-such-command') },
      ]),
    },
  });
});

afterAll(async () => {
  await gateway?.close();
  await browser?.close();
  await rm(workDir, { recursive: true, force: true });
});

describe('tool servers in the Channels panel', () => {
  it('shows each MCP server’s state and tools', async () => {
    const page = await newPhonePage(browser);
    await page.goto(`${gateway.url}/#token=${gateway.token}`);
    // The panels are in the header's menu.
    await page.getByTestId('more-button').click();
    await page.getByTestId('channels-button').click();
    const shop = page.locator('[data-testid=tool-server][data-name=shop][data-status=connected]');
    await shop.waitFor({ timeout: 15_000 });
    expect(await shop.textContent()).toContain('connected, 1 toolshop__lookup_order');
    const broken = page.locator('[data-testid=tool-server][data-name=broken][data-status=down]');
    await broken.waitFor({ timeout: 15_000 });
    expect(await broken.textContent()).toMatch(/down: .*ENOENT.*\(retrying\)/);
    await page.close();
  });
});
