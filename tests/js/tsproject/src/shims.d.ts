// semver ships no types of its own; the fixture needs none.
declare module "semver";
