// The renderer bundle: one build for both shells (Electron loads it from files or a custom
// protocol, the web shell serves it over HTTP), hence relative asset URLs (`base: './'`).
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

export default defineConfig({
  root: 'renderer',
  base: './',
  plugins: [react()],
  build: {
    outDir: '../out/renderer',
    emptyOutDir: true,
    // Fonts and icons ship as files, never as data: URIs, so a strict CSP (`font-src 'self'`)
    // holds and the app looks right offline.
    assetsInlineLimit: 0,
    // The CSP forbids inline scripts; Vite's modulepreload polyfill would be one more
    // injected script for a feature every Chromium we ship already has.
    modulePreload: { polyfill: false },
    sourcemap: true,
    target: 'chrome120',
    // The app loads from local files, never over a network: one ~800 kB chunk (React, xterm)
    // costs nothing worth splitting for. Warn only well past that.
    chunkSizeWarningLimit: 1500,
  },
  server: { host: '127.0.0.1', strictPort: false },
});
