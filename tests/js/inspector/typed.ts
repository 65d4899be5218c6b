// Typed fixture: comments, blank lines and type annotations make Bun's transpiled lines differ.

/* A block comment
   over several lines, erased by the transpiler. */

interface Point {
  x: number;
  y: number;
}

type Scale = number;

function scale(p: Point, k: Scale): Point {
  // a comment inside the function

  const x: number = p.x * k; // TS_X

  const y: number = p.y * k; // TS_Y
  return { x, y }; // TS_RETURN
}

const origin: Point = { x: 3, y: 4 };
const result: Point = scale(origin, 10); // TS_CALL
console.log("scaled", result.x, result.y);
