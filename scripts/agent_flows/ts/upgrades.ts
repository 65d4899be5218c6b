// Offers upgrades within the range the user pinned: the newest release is never offered, and nothing throws.
import * as semver from "semver";

const pinned = ">=2.1.0";
const releases = ["2.1.0", "2.2.3", "3.0.0-rc.2"];

function offered(range: string, versions: string[]): string[] {
  return versions.filter((v) => semver.satisfies(v, range));
}

console.log("offered", offered(pinned, releases).join(", "));
