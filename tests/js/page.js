// Page script for the browser target tests: a named function to break in and a global to read.
function answer(a, b) {
  const sum = a + b;
  return sum;
}
window.pairdbgAnswer = answer(40, 2);
document.getElementById("out").textContent = "answer " + window.pairdbgAnswer;
