// Data breakpoints (issue 23) on a class's setter, an own accessor, Set values, a property an inheriting object
// shadows, and a counter written from a timer 200 times.
class Account {
  constructor() {
    this._balance = 0;
  }
  get balance() {
    return this._balance;
  }
  set balance(v) {
    this._balance = Math.round(v * 100) / 100;
  }
}

function main() {
  const account = new Account();
  let stored = 1;
  const box = {};
  Object.defineProperty(box, "size", {
    get() { return stored; },
    set(v) { stored = v * 2; },
    enumerable: true,
    configurable: true,
  });
  const tags = new Set(["a"]);
  const proto = { level: 1 };
  const child = Object.create(proto);
  const counter = { value: 0 };
  const ready = true; // stop here
  account.balance = 10.004; // writes balance
  box.size = 4; // writes size
  child.level = 5; // shadows level
  tags.add("b"); // adds b
  tags.add("a");
  tags.delete("a"); // drops a
  const kept = [JSON.stringify(Object.getOwnPropertyDescriptor(proto, "level")), Object.keys(box).join(), ready];
  let ticks = 0;
  const timer = setInterval(() => {
    counter.value += 1; // ticks
    ticks += 1;
    if (ticks === 200) {
      clearInterval(timer);
      console.log(`end ${counter.value} ${proto.level} ${child.level} ${account.balance} ${[...tags]} ${kept.join(" ")}`);
    }
  }, 5);
}

main();
