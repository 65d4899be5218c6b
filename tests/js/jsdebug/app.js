// Debugged through VS Code's js-debug (DAP), not pairdbg's own inspector client.
function add(a, b) {
  const sum = a + b; // MARK:add
  return sum;
}

let acc = 0;
for (let i = 0; i < 3; i++) {
  acc = add(acc, i); // MARK:call
  console.log("step", i, acc);
}
console.log("done", acc);
