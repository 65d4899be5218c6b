// Exceptions: one thrown and caught, then one uncaught (exit code 1).
function risky(n) {
  if (n > 1) {
    throw new RangeError("too big: " + n); // THROW
  }
  return n;
}

try {
  risky(2); // CAUGHT_CALL
} catch (e) {
  console.log("caught", e.message);
}
console.log("before uncaught");
risky(3); // UNCAUGHT_CALL
console.log("never printed");
