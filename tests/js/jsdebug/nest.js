// Forks itself twice over: a fork of a fork, each process one level deeper.
const { fork } = require("child_process");
const depth = Number(process.argv[2] || 0);
function at(level) {
  return level * 10; // MARK:at
}
console.log("depth", depth, at(depth));
if (depth < 2) fork(__filename, [String(depth + 1)]).on("exit", () => console.log("fork of", depth, "done"));
