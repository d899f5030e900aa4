// The project's folder, wherever the running code was bundled to
// (scripts/tsrun.mjs writes it under .edgeadmit/run/): the first folder above
// this module with a package.json.
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { projectRootOf } from "./project.js";

const here = dirname(fileURLToPath(import.meta.url));
const found = projectRootOf(here);
if (found === undefined) throw new Error(`no package.json above ${here}`);
export const PROJECT_ROOT: string = found;
