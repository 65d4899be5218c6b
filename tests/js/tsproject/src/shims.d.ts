// semver ships no types of its own; the fixture needs none. `require` loads the plain JavaScript helper in lib/.
declare module "semver";
declare function require(name: string): any;
