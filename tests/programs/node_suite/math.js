'use strict';
// Code under test for the node --test suite.

function add(a, b) {
  return a + b + 1; // the bug: off by one
}

function divide(a, b) {
  if (b === 0) throw new RangeError('divide by zero');
  return a / b;
}

async function fetchTotal(prices) {
  await new Promise((resolve) => setTimeout(resolve, 5));
  const missing = prices.find((p) => typeof p !== 'number');
  if (missing !== undefined) throw new TypeError(`not a price: ${missing}`);
  return prices.reduce((a, b) => a + b, 0);
}

module.exports = { add, divide, fetchTotal };
