// The console's build: static files under dist/console, served by the gateway at /console/.
// Preact's automatic JSX runtime through Vite's own transform (no framework plugin needed).
import path from 'node:path';
import { defineConfig } from 'vite';

export default defineConfig({
  root: import.meta.dirname,
  base: '/console/',
  logLevel: 'warn',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: path.resolve(import.meta.dirname, '../../dist/console'),
    emptyOutDir: true,
    target: 'es2022',
    // No inline <script> or data: module: the CSP allows only files from the gateway.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    sourcemap: false,
  },
});
