// Lint enforces the layering in ARCHITECTURE.md, so the direction of imports is
// checked by a machine, not by memory (as VS Code's local/code-layering does).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import layering from './scripts/eslint-layering.mjs';

const electronBan = {
  paths: [{ name: 'electron', message: 'Only main/electron/ (and preload/) may import electron.' }],
};

export default tseslint.config(
  { ignores: ['node_modules/**', 'out/**', 'dist/**', 'test-results/**', 'playwright-report/**', '**/*.d.ts'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', Buffer: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', setInterval: 'readonly', clearInterval: 'readonly', setImmediate: 'readonly', URL: 'readonly', AbortController: 'readonly', TextDecoder: 'readonly', TextEncoder: 'readonly', fetch: 'readonly', structuredClone: 'readonly', queueMicrotask: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/no-explicit-any': 'off',
      'no-empty': ['error', { allowEmptyCatch: true }],
    },
  },
  {
    files: ['main/**/*.ts'],
    ignores: ['main/electron/**'],
    rules: { 'no-restricted-imports': ['error', electronBan] },
  },
  {
    files: ['common/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [{ regex: '^(?!zod$|zod/|\\.{1,2}/).*', message: 'common/ imports nothing but zod (and itself).' },
          { group: ['**/main/**', '**/renderer/**', '**/preload/**'], message: 'common/ stands alone.' }],
      }],
    },
  },
  {
    files: ['renderer/**/*.{ts,tsx}'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: electronBan.paths,
        patterns: [{ group: ['**/main/**', '**/preload/**'], message: 'renderer/ talks only to the host API in common/.' }],
      }],
    },
  },
  {
    // Every import form (static, export-from, import(), require, import = require, import type
    // of a path), one rule that knows the layers: scripts/eslint-layering.mjs.
    files: ['main/**/*.ts', 'common/**/*.ts', 'renderer/**/*.{ts,tsx}', 'preload/**/*.ts'],
    ignores: ['**/*.test.ts', '**/*.test.tsx'],
    plugins: { gatehouse: layering },
    rules: { 'gatehouse/layering': 'error' },
  },
  {
    // Protocol hygiene: host code must never write to stdout (a stdio gateway or server
    // would corrupt its protocol stream). The CLI and Electron shell may.
    files: ['main/**/*.ts'],
    ignores: ['main/cli/**', 'main/electron/**', '**/*.test.ts'],
    rules: { 'no-console': ['error', { allow: ['error', 'warn'] }] },
  },
);
