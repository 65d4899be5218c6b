// An async function stopped inside an awaited call: the caller appears in the async stack.
async function fetchValue(x) {
  const doubled = await new Promise((resolve) => {
    setTimeout(() => {
      resolve(x * 2); // IN_TIMER
    }, 5);
  });
  return doubled; // INNER
}

async function outer() {
  const v = await fetchValue(21); // AWAIT_CALL
  console.log("value", v);
}

outer();
