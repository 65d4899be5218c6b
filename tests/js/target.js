// Script target for the Bun and Node tests: run under --inspect-brk, so it waits for a debugger before line 1.
function add(a, b) {
  const sum = a + b;
  return sum;
}
const total = add(40, 2);
console.log("total", total);
