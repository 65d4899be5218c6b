// Plain JavaScript (no map), required by main.ts: its last line runs the moment it loads.
function square(n) {
  return n * n; // EAGER_SQUARE
}

module.exports = { squares: [1, 2, 3].map(square) }; // EAGER_TOP
