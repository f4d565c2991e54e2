import { type Browser, chromium } from 'playwright-core';

export interface LaunchBrowserOptions {
  /** Defaults to `CHROMIUM_PATH`, then Debian's `/usr/bin/chromium`. */
  executablePath?: string;
  /** Extra Chromium switches, e.g. `--use-fake-device-for-media-stream` for a fake microphone. */
  args?: string[];
}

const chromiumArgs = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/**
 * Headless Chromium from the system (no Playwright browser download, no network at start-up).
 * Test harness only: it reads CHROMIUM_PATH so CI can point at another build.
 */
export async function launchBrowser(options: LaunchBrowserOptions = {}): Promise<Browser> {
  return chromium.launch({
    executablePath: options.executablePath ?? process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    headless: true,
    args: [...chromiumArgs, ...(options.args ?? [])],
  });
}
