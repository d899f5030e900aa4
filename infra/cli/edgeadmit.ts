// Entry point of `edgeadmit` (bin/edgeadmit.mjs) and of the CronJob's bundle.
import { setFlagsFromString } from "node:v8";
import { main } from "./main.js";

// V8 lets the heap grow to up to 4× what is live between full collections; a
// verb that streams a large tree (check, snapshot build) produces much
// short-lived garbage, so its peak resident memory would follow that factor,
// not what it holds. 15% keeps the peak near the live set (npm run bench,
// section 8: 45,000 objects in under 256 MB) at a small cost in GC time.
setFlagsFromString("--heap-growing-percent=15");

// A reader that stops early (`edgeadmit … | head -1`) closes the pipe: end
// quietly, as other Unix tools do, never with an EPIPE stack trace. Any other
// failure to write the output is one line and exit 1.
process.stdout.on("error", (e: NodeJS.ErrnoException) => {
  if (e.code !== "EPIPE") {
    process.stderr.write(`edgeadmit: cannot write the output: ${e.code ?? e.message}\n`);
    process.exit(1);
  }
  process.exit(typeof process.exitCode === "number" ? process.exitCode : 0);
});
// stderr gone too: nothing is left to tell.
process.stderr.on("error", () => process.exit(typeof process.exitCode === "number" ? process.exitCode : 1));

process.exitCode = await main(process.argv.slice(2));
