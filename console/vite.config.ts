import { resolve } from 'node:path';
import { defineConfig } from 'vite';

/**
 * The console's build (scripts/build-console.sh): Preact through esbuild's JSX transform (no
 * Babel preset needed), one entry, every asset under /console/assets/ with a content hash, no
 * inline script (the Content-Security-Policy forbids it) and no source maps in what is served.
 */
export default defineConfig({
  root: resolve(import.meta.dirname),
  base: '/console/',
  esbuild: { jsx: 'automatic', jsxImportSource: 'preact' },
  build: {
    outDir: resolve(import.meta.dirname, '../dist/console'),
    emptyOutDir: true,
    target: 'es2022',
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    reportCompressedSize: false,
  },
  logLevel: 'warn',
});
