// Preloaded (Node --require, Bun --preload) into a program pairdbg starts and reads the output of from its pipes
// (the inspector backend's and js-debug's). With a debugger attached, Node's console hands every call to the
// inspector too, which serialises it (its arguments, its stack) into an event in the program's own thread: 1M
// console.log lines took 20-30x as long. pairdbg reads the program's output from its pipes, so those events reach
// nobody: the printing methods become Node's own console's, which write to stdout and stderr only (the same text,
// stream and formatting). The inspector-only methods (profile, timeStamp, ...) stay. A fork inherits the preload:
// its lines reach the parent's pipes (and its session) once.
{
  const { Console } = require("console");
  const plain = new Console({ stdout: process.stdout, stderr: process.stderr });
  for (const key of Object.keys(plain)) {
    if (typeof plain[key] === "function" && typeof console[key] === "function") console[key] = plain[key];
  }
}
