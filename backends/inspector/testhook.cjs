'use strict';
// The debuggee's side of debugging a `node --test` run (preloaded with --require; see backends/testrun.py).
//
// node:test runs each test function inside its own try/catch, so to V8 an exception that fails a test is "caught"
// and the inspector's pause on uncaught exceptions never stops at it. This hook runs each test and hook function
// so that nothing in the program handles its failure: the function runs inside a promise no code has a rejection
// handler for, so V8 predicts the exception uncaught and pauses where it is thrown, stack intact. The rejection then
// reaches node:test as the test's own failure (process.emit is wrapped for these promises only), exactly as if the
// hook were not there. An exception the test expects (assert.throws, assert.rejects, a try/catch) has a handler at
// the throw, so it never pauses.
//
// `globalThis[Symbol.for('pairdbg.testhook')]` is read by pairdbg at a pause: `current()` names the test running;
// `delivered(error)` says the error already reached node:test (V8 pauses once more as node:test's own promise
// rejects, where it cannot see node:test's catch; pairdbg lets that pause go).

const { AsyncLocalStorage, AsyncResource } = require('node:async_hooks');

const TEST_CLASSES = new Set(['Test', 'Suite', 'TestHook']);
const running = new AsyncLocalStorage();
const failures = new Map(); // a test function's unhandled outcome -> rejects what node:test awaits
const delivered = new WeakSet(); // errors handed to node:test: a pause on one again is an echo, not a failure
let calling = null; // the test whose function is being called (its context is gone once the call threw)

function fullName(test) {
  const names = [];
  for (let t = test; t && t.parent; t = t.parent) {
    if (t.name && t.name !== '<root>') names.unshift(t.hookType ? `${t.hookType} hook` : t.name);
  }
  return names.join(' > ') || String(test.name);
}

function isThenable(value) {
  return (typeof value === 'object' || typeof value === 'function') && value !== null && typeof value.then === 'function';
}

function exposed(test, fn) {
  return function runExposed(...args) {
    let settle;
    const seen = new Promise((resolve, reject) => {
      settle = { resolve, reject };
    });
    // Each chain below ends in a promise nothing handles a rejection of (`watch`): to V8 a throw in the test is
    // uncaught, so it pauses there. A synchronous throw rejects `call` (its executor), an asynchronous one the
    // test's own promise; neither is adopted by another promise (that would count as a handler).
    const watch = (promise) => {
      const outcome = promise.then((value) => {
        failures.delete(outcome);
        settle.resolve(value);
      });
      failures.set(outcome, settle.reject);
    };
    let result;
    calling = test;
    const call = new Promise((resolve) => {
      result = running.run(test, () => Reflect.apply(fn, this, args));
      resolve();
    });
    calling = null;
    if (isThenable(result)) {
      watch(result);
    } else {
      watch(call.then(() => result));
    }
    return seen;
  };
}

const runInAsyncScope = AsyncResource.prototype.runInAsyncScope;
AsyncResource.prototype.runInAsyncScope = function (fn, thisArg, ...args) {
  // node:test calls each test, suite and hook function through its Test's runInAsyncScope(this.fn, ctx, ...).
  // A test taking a done callback (its last argument) reports its failure through it: left as it is.
  const callback = args.length > 0 && typeof args[args.length - 1] === 'function' && fn.length === args.length;
  if (typeof fn === 'function' && fn === this.fn && TEST_CLASSES.has(this.constructor.name) && !callback) {
    return Reflect.apply(runInAsyncScope, this, [exposed(this, fn), thisArg, ...args]);
  }
  return Reflect.apply(runInAsyncScope, this, [fn, thisArg, ...args]);
};

const emit = process.emit;
process.emit = function (event, reason, promise, ...rest) {
  if (event === 'unhandledRejection' && failures.has(promise)) {
    const reject = failures.get(promise);
    failures.delete(promise);
    if ((typeof reason === 'object' || typeof reason === 'function') && reason !== null) delivered.add(reason);
    reject(reason); // node:test sees the failure where it awaits the test function, as without this hook
    return true;
  }
  return Reflect.apply(emit, this, [event, reason, promise, ...rest]);
};

Object.defineProperty(globalThis, Symbol.for('pairdbg.testhook'), {
  value: Object.freeze({
    current() {
      const test = running.getStore() || calling;
      return test ? fullName(test) : null;
    },
    delivered(error) {
      return delivered.has(error);
    },
  }),
});
