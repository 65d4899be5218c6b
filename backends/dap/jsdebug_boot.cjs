// Preloaded (--require) into the Node program pairdbg starts for js-debug, which finds the program's forks and
// workers itself: on attach it adds its bootloader to the program's NODE_OPTIONS (VSCODE_INSPECTOR_OPTIONS says where
// to report). Two things stand in its way, both settled here before the program's first line runs.
//
// 1. Node hands its own flags to every fork (child_process.fork uses process.execArgv): a fork would inherit
//    --inspect-brk and wait on an inspector of its own that nobody attaches to. The flags stay with this process.
process.execArgv = process.execArgv.filter((arg) => !/^--inspect(-brk|-wait)?(=|$)/.test(arg));

// 2. js-debug sets those variables while it lets the program run, not before: a fork made at once would start
//    without them and run undebugged. Node's inspector runs js-debug's request in between (it interrupts running
//    code), so this waits, bounded, until the variables are there. A fork or worker inherits them and goes on at once.
const deadline = Date.now() + 3000;
while (!process.env.VSCODE_INSPECTOR_OPTIONS && Date.now() < deadline) {
  // spin: Node's inspector runs the request from js-debug that sets the variables in between
}

// 3. Console calls print to the pipes only, not to the inspector too (see plainconsole.cjs).
require(require("path").join(__dirname, "..", "inspector", "plainconsole.cjs"));
