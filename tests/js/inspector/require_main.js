// Steps over a require of a file that has a breakpoint but has not loaded yet.
const a = 1;
const helper = require("./require_helper.js"); // STEP_REQUIRE
const b = helper.twice(a); // NEXT_LINE
console.log("b", b);
