// Entry point of `edgeadmit` (bin/edgeadmit.mjs) and of the CronJob's bundle.
import { main } from "./main.js";

process.exitCode = await main(process.argv.slice(2));
