// Data breakpoints (issue 23) on array elements and a global variable, beside the places a watch cannot see: a
// CommonJS module's top-level let (a local of the module's function), a local, a frozen object's property, a
// non-configurable property and a typed array's element.
let moduleLevel = 1;

function main() {
  const queue = ["a", "b", "c"];
  const frozen = Object.freeze({ a: 1 });
  const locked = {};
  Object.defineProperty(locked, "fixed", { value: 1, writable: true, enumerable: true, configurable: false });
  const bytes = new Uint8Array(4);
  globalThis.hits = 0;
  const ready = [frozen, locked, bytes].length; // stop here
  queue[1] = "B"; // sets b
  queue.sort(); // sorts
  queue.pop(); // pops
  queue.push("d"); // pushes
  hits += 1; // counts a hit
  moduleLevel += 1;
  const tally = { count: 0 };
  for (let i = 1; i <= 2500; i++) tally.count = i; // a busy loop
  console.log(`end ${queue.join()} ${hits} ${moduleLevel} ${Array.isArray(queue)} ${JSON.stringify(queue)} ${ready}`);
}

main();
