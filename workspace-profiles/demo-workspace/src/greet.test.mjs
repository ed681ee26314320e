// Run with: node --test src/
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { greet, greetAll } from './greet.mjs';

test('greet', () => {
  assert.equal(greet('Ada'), 'Hello, Ada!');
});

test('greetAll separates greetings with a space', () => {
  assert.equal(greetAll(['Ada', 'Bob']), 'Hello, Ada! Hello, Bob!');
});
