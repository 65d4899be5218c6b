// Data breakpoints (issue 23): values written by the program, by an npm library (semver) and from a timer.
const path = require("path");
const semver = require(path.join(__dirname, "..", "tsproject", "node_modules", "semver"));

class Cart {
  constructor() {
    this.total = 0;
    this.items = [];
  }
}

function add(cart, price) {
  cart.total = Math.round((cart.total + price) * 100) / 100; // writes total
}

function main() {
  const cart = new Cart();
  const other = new Cart();
  const version = new semver.SemVer("1.2.3");
  const cache = new Map([["host", "localhost"]]);
  const frozen = Object.freeze({ a: 1 });
  const sealed = Object.seal({ b: 2 });
  const list = [1, 2, 3];
  const ready = [frozen, sealed, list].length; // stop here
  for (const price of [7.25, 3.72, -20]) {
    add(cart, price);
    other.total = price; // another instance
  }
  version.inc("minor");
  cache.set("port", 5432);
  cache.set("host", "db.internal"); // writes host
  setTimeout(() => {
    cart.total = 0; // reset from a timer
    const keys = Object.keys(cart).join(",");
    console.log(`done ${ready} ${version.version} ${cache.get("host")} ${JSON.stringify(cart)} ${keys} ${cache instanceof Map}`);
  }, 10);
}

main();
