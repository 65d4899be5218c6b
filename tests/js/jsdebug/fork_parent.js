// Forks a child process: js-debug offers it as a target of its own, which becomes a session beside the program's.
const { fork } = require("child_process");
const child = fork(__dirname + "/fork_child.js");
child.on("exit", (code) => {
  const total = 2 + 3; // MARK:after
  console.log("child exited", code, total);
});
