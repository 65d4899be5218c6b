// Data breakpoints (issue 23) in an ES module: a top-level let is a binding of the module's scope (refused with the
// reason); a property of a module-level object is watched as anywhere.
let hits = 0;
const settings = { mode: "dev" };

export function run() {
  const ready = hits; // stop here
  hits += 1;
  settings.mode = "prod"; // sets mode
  console.log(`module ${hits} ${settings.mode} ${ready}`);
}

run();
