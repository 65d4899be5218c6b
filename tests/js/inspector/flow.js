// The seed's Appendix B workflow on Node and Bun: breakpoints, steps, frames, values, console output.
function add(a, b) {
  const sum = a + b; // ADD_BODY
  return sum; // ADD_RETURN
}

function sumAll(items, label) {
  let acc = 0; // SUM_FIRST
  for (let i = 0; i < items.length; i++) {
    acc = add(acc, items[i]); // CALL_ADD
  }
  return acc; // SUM_RETURN
}

const data = [];
for (let n = 1; n <= 30; n++) data.push(n);
const big = {};
for (let k = 0; k < 60; k++) big["key" + k] = k;
console.log("start", data.length); // PRINT_START
const total = sumAll(data, "numbers"); // CALL_SUM
console.log("total", total); // PRINT_TOTAL
