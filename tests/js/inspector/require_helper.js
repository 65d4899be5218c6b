// Loaded by require_main.js; twice() is called after it loads.
const base = 10; // HELPER_FIRST
function twice(n) {
  return n * 2 + base - base; // TWICE
}
module.exports = { twice };
