// Recursion: a step out of one call of fact must come back from that call, not from a deeper one.
function fact(n) {
  if (n <= 1) return 1; // MARK:base
  const rest = fact(n - 1);
  return n * rest; // MARK:product
}
console.log("fact", fact(5));
