// Finding the project's folder (the first folder with a package.json above a
// module), without failing: infra/base/root.ts fails where there is none,
// which a bundle (infra/bundle) has not.
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";

/** The first folder at or above `from` with a package.json, or undefined. */
export function projectRootOf(from: string): string | undefined {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, "package.json"))) return dir;
    if (dirname(dir) === dir) return undefined;
  }
}
