// A program with a worker_threads worker and a child_process.fork child, each running code of its own. The fork then
// ticks until someone sets `keepTicking = false` in it (a target to pause); the parent ends once both have.
const { Worker, isMainThread, parentPort } = require("worker_threads");
const { fork } = require("child_process");

function inWorker(n) {
  const doubled = n * 2; // MARK:worker
  return doubled + 1;
}

function inChild(n) {
  const tripled = n * 3; // MARK:child
  return tripled + 1;
}

if (process.argv[2] === "child") {
  console.log("child computed", inChild(20));
  globalThis.keepTicking = true;
  let ticks = 0;
  const timer = setInterval(() => {
    ticks += 1; // MARK:tick
    if (!globalThis.keepTicking) clearInterval(timer);
  }, 10);
} else if (!isMainThread) {
  parentPort.postMessage(inWorker(10));
} else {
  let pending = 2;
  const done = (what) => {
    pending -= 1;
    if (pending === 0) console.log("family done", what); // MARK:done
  };
  const worker = new Worker(__filename);
  worker.on("message", (got) => console.log("worker computed", got));
  worker.on("exit", () => done("worker"));
  fork(__filename, ["child"]).on("exit", () => done("child"));
}
