// Runs until told: each line on stdin makes it require lazy_mod.js (once) and call into it. An attached debugger sees
// the module load only after the test sends a line.
let mod = null;
process.stdin.setEncoding("utf8");
process.stdin.on("data", () => {
  mod = mod || require("./lazy_mod.js");
  console.log("computed", mod.compute(7));
});
setInterval(() => {}, 1000);
