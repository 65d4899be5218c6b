// Data breakpoints (issue 23) in TypeScript built by tsc with a source map: stops and change-log lines name the .ts.
interface Tally {
  count: number;
  label?: string;
}

/* A block comment, and the interface above:
   the compiled file's lines differ from these. */
function bump(tally: Tally, by: number): void {
  tally.count += by; // bumps count
}

const tally: Tally = { count: 0 };
const ready: boolean = true;
debugger; // stop here (a statement, not a breakpoint: deterministic at the top of a module with a source map)
bump(tally, 2);
bump(tally, 3);
console.log(`typed ${tally.count} ${ready}`);
