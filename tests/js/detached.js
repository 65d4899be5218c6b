// Starts a child in a session of its own (detached) that runs until killed, prints its pid, then runs on, or with
// argv[2] == "exit" ends (a breakpoint on the marked line holds it there first).
const { spawn } = require("child_process");

const child = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { detached: true, stdio: "ignore" });
child.unref();
console.log("detached child", child.pid);
const stays = process.argv[2] !== "exit"; // MARK:exit
if (stays) setInterval(() => {}, 1000);
