// A long-running program to attach to: a timer calls tick() until stopped.
let n = 0;
function tick() {
  n += 1; // MARK:tick
}
setInterval(tick, 20);
