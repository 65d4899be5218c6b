// Leaves a daemon behind: a shell in a session of its own (detached), with an empty environment, that backgrounds
// a long sleep and exits, so the sleep is orphaned. The daemon's pid goes to argv[2]; the program then runs on, or
// with argv[3] == "exit" ends at once (before anything could have seen the daemon under it). With
// "exit-middle-later" the shell in between outlives the program (it waits for it to be gone, and a moment more),
// so the daemon is orphaned onto pairdbg only after the program's session has ended.
const { spawn } = require("child_process");

const pidfile = process.argv[2];
const mode = process.argv[3];
const linger = mode === "exit-middle-later" ? `; while kill -0 ${process.pid} 2>/dev/null; do sleep 0.05; done; sleep 0.5` : "";
spawn("/bin/sh", ["-c", `sleep 600 >/dev/null 2>&1 </dev/null & echo $! > ${pidfile}.tmp && mv ${pidfile}.tmp ${pidfile}${linger}`], {
  detached: true,
  env: {},
  stdio: "ignore",
}).unref();
if (mode === "stay") setInterval(() => {}, 1000);
