// Never loaded at startup: lazy_main.js requires it after a timer.

function compute(n) {
  const squared = n * n; // LAZY_BODY
  return squared + 1;
}

module.exports = { compute };
