// semver ships no types of its own; the flows need none.
declare module "semver";
