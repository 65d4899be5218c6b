// Loads lazy_mod.js only after a timer, so a breakpoint there is pending until then; calls into it a bit later.
console.log("main running");
setTimeout(() => {
  const mod = require("./lazy_mod.js");
  setTimeout(() => console.log("lazy says", mod.compute(6)), 50);
}, 30);
