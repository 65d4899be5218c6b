// A long-running target for attach/connect: tick() runs every 20 ms; the process ends by itself after 60 s.
let count = 0;
function tick() {
  count += 1; // TICK
  return count;
}
setInterval(tick, 20);
setTimeout(() => process.exit(0), 60000);
console.log("server up");
