// The refusals in words (api.js), without a browser: what was needed and what was there.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError } from '../../studio-server/console/api.js';

test('a 402 says what was needed and what was there', () => {
  const e = new ApiError(402, 'INSUFFICIENT_TOKENS', 'Not enough tokens.', { need: 9, spendable: 4 });
  assert.match(e.words, /needs 9, you have 4/);
});

test('an upload refused for its size names the limit', () => {
  assert.match(new ApiError(413, 'IMAGE_TOO_LARGE', 'Too large.', { maxMb: 12 }).words, /at most 12 MB/);
});

test("an upload refused for its type keeps the server's sentence", () => {
  const message = 'Only JPEG, PNG, WebP and GIF images are accepted; this is text/plain.';
  assert.equal(new ApiError(400, 'UNSUPPORTED_TYPE', message).words, message);
});

test('an unknown refusal keeps the message, and an empty one names the status', () => {
  assert.equal(new ApiError(409, 'SOMETHING', 'It clashed.').words, 'It clashed.');
  assert.match(new ApiError(500, 'HTTP_500', '').words, /500/);
});
