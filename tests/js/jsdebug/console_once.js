// Prints through console.log/error/warn and process.stdout.write, between two breakpoints, then exits with code 3.
let count = Number(process.argv[2] || 200);
console.log("first"); // MARK:before
for (let i = 0; i < count; i++) console.log("line", i);
console.error("to stderr");
console.warn("warned");
process.stdout.write("written\n");
console.log({ nested: { deep: [1, 2] } });
process.exitCode = 3; // MARK:after
