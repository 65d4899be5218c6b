// Containers and objects whose contents live in engine-internal slots: Map, Set, generator, Promise, typed array and
// a class with #private fields.
class Account {
  #balance = 42;
  #owner = "ada";
  constructor() {
    this.id = 7;
  }
  get balance() {
    return this.#balance;
  }
}

function* counter() {
  let n = 0;
  while (true) yield n++;
}

function inspect() {
  const big = new Map();
  for (let i = 0; i < 10000; i++) big.set(`k${i}`, i);
  const tags = new Set(["red", "green", "blue"]);
  const gen = counter();
  gen.next();
  const done = Promise.resolve({ ok: true });
  const bytes = new Uint8Array([1, 2, 3, 250]);
  const account = new Account();
  return [big, tags, gen, done, bytes, account].length; // VALUES_STOP
}

console.log("values", inspect(), new Account().balance);
