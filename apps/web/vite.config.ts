import preact from '@preact/preset-vite';
import { defineConfig, type Plugin } from 'vite';

/**
 * The page renders model text, so it runs only its own script: no inline script or style, sockets
 * only to its origin. https images are allowed because a reply's image loads only after the person
 * clicks its placeholder (components/remote-image.tsx): an image URL can carry conversation data.
 */
const contentSecurityPolicy = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob: https:",
  "connect-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "object-src 'none'",
].join('; ');

/** Only in the build: `vite dev` injects inline styles and scripts for hot reload. */
function contentSecurityPolicyMeta(): Plugin {
  return {
    name: 'nexus-content-security-policy',
    apply: 'build',
    transformIndexHtml: () => [
      {
        tag: 'meta',
        attrs: { 'http-equiv': 'Content-Security-Policy', content: contentSecurityPolicy },
        injectTo: 'head-prepend',
      },
    ],
  };
}

// The gateway serves dist/ at `/` and the web socket at `/ws` on the same origin; in `vite dev`
// the proxy below gives the same shape against a gateway running on its default port.
export default defineConfig({
  plugins: [preact(), contentSecurityPolicyMeta()],
  build: {
    target: 'es2022',
    // Inlined assets become data: URLs; keep every asset a file so the CSP stays strict.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
  },
  server: {
    proxy: { '/ws': { target: 'ws://127.0.0.1:8787', ws: true } },
  },
});
