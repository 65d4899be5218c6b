'use strict';
const test = require('node:test');
const assert = require('node:assert');
const { add, divide, fetchTotal } = require('./math');

test('divide passes', () => {
  assert.strictEqual(divide(6, 3), 2);
});

test('add fails', () => {
  const sum = add(2, 2);
  assert.strictEqual(sum, 4);
});

test('expected error passes', () => {
  assert.throws(() => divide(1, 0), /divide by zero/);
});

test('caught inside passes', () => {
  try {
    divide(1, 0);
  } catch {
    // expected
  }
});

test('async error fails', async () => {
  const total = await fetchTotal([1, 'two', 3]);
  assert.strictEqual(total, 6);
});

test('expected rejection passes', async () => {
  await assert.rejects(fetchTotal(['x']), /not a price/);
});

function depth(n) {
  return depth(n + 1) + 1;
}

test('deep recursion fails', () => {
  depth(0);
});
