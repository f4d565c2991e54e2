// `node --import <this file>`: appends the name of every package the process loads, once each,
// to the file named by LOADED_PACKAGES_FILE (npm packages by name, workspace packages as
// `@nexus/<directory>`), so a test can see what a real start loaded.
import { appendFileSync } from 'node:fs';
import { registerHooks } from 'node:module';

const file = process.env.LOADED_PACKAGES_FILE;
const seen = new Set<string>();

function packageOf(url: string): string | undefined {
  const npm = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\/(?!.*\/node_modules\/)/.exec(url);
  if (npm) return npm[1];
  const workspace = /\/(?:packages|apps)\/([^/]+)\/src\//.exec(url);
  return workspace ? `@nexus/${workspace[1]}` : undefined;
}

if (file) {
  registerHooks({
    load(url, context, nextLoad) {
      const name = packageOf(url);
      if (name && !seen.has(name)) {
        seen.add(name);
        appendFileSync(file, `${name}\n`);
      }
      return nextLoad(url, context);
    },
  });
}
