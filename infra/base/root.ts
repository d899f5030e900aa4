// The project's folder, wherever the running code was bundled to
// (scripts/tsrun.mjs writes it under .edgeadmit/run/): the first folder above
// this module with a package.json.
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

function projectRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, "package.json"))) return dir;
    if (dirname(dir) === dir) throw new Error(`no package.json above ${from}`);
  }
}

export const PROJECT_ROOT = projectRoot(dirname(fileURLToPath(import.meta.url)));
