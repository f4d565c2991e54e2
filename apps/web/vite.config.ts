import preact from '@preact/preset-vite';
import { defineConfig } from 'vite';

// The gateway serves dist/ at `/` and the web socket at `/ws` on the same origin; in `vite dev`
// the proxy below gives the same shape against a gateway running on its default port.
export default defineConfig({
  plugins: [preact()],
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
