// Entry point of `edgeadmit` (bin/edgeadmit.mjs) and of the CronJob's bundle.
import { setFlagsFromString } from "node:v8";
import { main } from "./main.js";

// V8 lets the heap grow to up to 4× what is live between full collections; a
// verb that streams a large tree (check, snapshot build) produces much
// short-lived garbage, so its peak resident memory would follow that factor,
// not what it holds. 15% keeps the peak near the live set (npm run bench,
// section 8: 45,000 objects in under 256 MB) at a small cost in GC time.
setFlagsFromString("--heap-growing-percent=15");

process.exitCode = await main(process.argv.slice(2));
