// `this` among a method's locals, and a `debugger;` statement reported as such.
class Counter {
  constructor() {
    this.count = 41;
  }

  bump() {
    const next = this.count + 1; // BUMP
    debugger; // DEBUGGER
    this.count = next;
    return next;
  }
}

const counter = new Counter();
console.log(counter.bump());
