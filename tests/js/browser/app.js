// Page script for tests/test_inspector_browsers.py. A timer calls tick(n) every 100 ms, so breakpoints are hit
// without reloading the page. Tests find lines by the MARK comments, never by number.
let ticks = 0;

function tick(n) {
  const doubled = n * 2; // MARK:tick
  ticks = doubled; // MARK:after
  console.log("tick " + n + " doubled " + doubled);
  guarded(n);
  document.getElementById("out").textContent = "tick " + n;
  return doubled;
}

function guarded(n) {
  try {
    throw new RangeError("caught tick " + n); // MARK:throw
  } catch (err) {
    window.lastCaught = err.message;
  }
}

function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function settle(n) {
  await sleep(1);
  const settled = n + 1; // MARK:async
  return settled;
}

let counter = 0;
setInterval(() => {
  counter += 1;
  tick(counter);
  settle(counter);
}, 100);
