// The entry point, compiled by tsc into dist/main.js with an external map (dist/main.js.map).
import { total, loaded } from "./helper";
import { render } from "./render";
import * as semver from "semver";
const eager: { squares: number[] } = require("../lib/eager.js");

type Label = string;

function describe(label: Label, values: number[]): string {
  const totals = total(values); // MAIN_DESCRIBE
  return `${label}: ${totals.count} values, sum ${totals.sum}`;
}

const text: string = describe("nums", [4, 5, 6]); // MAIN_CALL
const version: string | null = semver.valid(semver.coerce("v7.8")); // MAIN_SEMVER
console.log(text, loaded.sum, version, render("*hi*").trim(), eager.squares.join(","));
