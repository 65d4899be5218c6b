// A long-running async target for connect: every 20 ms run() awaits work(); the line after work's await has an
// async caller (run). Ends by itself after 60 s.
let rounds = 0;
async function work(n) {
  await new Promise((resolve) => setTimeout(resolve, 1));
  return n + 1; // AFTER_AWAIT
}
async function run() {
  rounds = await work(rounds); // CALLER
}
setInterval(run, 20);
setTimeout(() => process.exit(0), 60000);
