// Loads plugins whose manifests give the engine version they need; one manifest's version makes semver throw.
import * as semver from "semver";

const engine = "3.4.0";
const manifests = [
  { name: "search", engine: "^3.0.0", version: "1.4.2" },
  { name: "export", engine: "^3.2.0", version: "2.0" },
];

function loadable(manifest: { name: string; engine: string; version: string }): string {
  const version = new semver.SemVer(manifest.version);
  return `${manifest.name}@${version.format()}`;
}

const loaded = manifests.filter((m) => semver.satisfies(engine, m.engine)).map(loadable);
console.log("loaded", loaded.join(", "));
