// A CommonJS module stopped in its top-level code: its own names, not the five of the wrapper it runs in.
const path = require("path");
const limit = 3;
let total = 0;
for (let i = 0; i < limit; i++) total += i; // MODULE_LOOP
exports.total = total;
module.exports.where = path.basename(__filename) + " in " + path.basename(__dirname);
console.log("module total", total, module.exports.where); // MODULE_END
