// Leaves a daemon behind: a shell in a session of its own (detached), with an empty environment, that backgrounds
// a long sleep and exits, so the sleep is orphaned. The daemon's pid goes to argv[2]; the program then runs on, or
// with argv[3] == "exit" ends at once (before anything could have seen the daemon under it).
const { spawn } = require("child_process");

const pidfile = process.argv[2];
spawn("/bin/sh", ["-c", `sleep 600 >/dev/null 2>&1 </dev/null & echo $! > ${pidfile}.tmp && mv ${pidfile}.tmp ${pidfile}`], {
  detached: true,
  env: {},
  stdio: "ignore",
}).unref();
if (process.argv[3] !== "exit") setInterval(() => {}, 1000);
