// `node scripts/tsrun.mjs scripts/dashboard-screenshots.ts`: the screenshots
// of docs/dashboard.md, taken from a real run: npm start's own code
// (scripts/demo.ts) in a scratch state directory, the fleet of the browser
// test (scripts/dashboard-fleet.ts) with one promotion, `edgeadmit
// dashboard`'s server, and Debian's headless Chromium; each page in the light
// scheme, the Fleet page in the dark one too. Run it again after changing a
// page; the images are written to docs/images/.
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { PROJECT_ROOT } from "../infra/base/root.js";
import { changeFleet, currentFleet } from "../infra/client/fleet.js";
import { serveDashboard } from "../infra/dashboard/serve.js";
import { functionSource } from "../infra/dashboard/source.js";
import { launchChromium, seedFleet } from "./dashboard-fleet.js";
import { demoFiles, startDemo } from "./demo.js";

const SHOTS = [
  ["dashboard-fleet.png", "/", "light"],
  ["dashboard-fleet-dark.png", "/", "dark"],
  ["dashboard-policies.png", "/policies", "light"],
  ["dashboard-verdicts.png", "/verdicts?hours=24", "light"],
  ["dashboard-changes.png", "/changes", "light"],
] as const;

const dir = mkdtempSync(join(PROJECT_ROOT, ".edgeadmit", "screenshots-"));
const out = join(PROJECT_ROOT, "docs", "images");
const demo = await startDemo({ files: demoFiles(dir), port: 0, logLevel: "warn" });
try {
  const operatorPem = readFileSync(demo.files.operatorKey, "utf8");
  await seedFleet(demo.worker.url, operatorPem);
  const current = await currentFleet(demo.worker.url, operatorPem);
  await changeFleet(demo.worker.url, operatorPem, { op: "promote", binding: "baseline-team", ifRevision: current.revision });
  const dashboard = await serveDashboard(functionSource(demo.worker.url, operatorPem), demo.worker.url, 0);
  const browser = await launchChromium(120_000);
  try {
    mkdirSync(out, { recursive: true });
    for (const [file, path, colorScheme] of SHOTS) {
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 }, colorScheme });
      await page.goto(new URL(path, dashboard.url).href);
      await page.screenshot({ path: join(out, file), fullPage: true });
      await page.close();
      console.log(`wrote docs/images/${file}`);
    }
  } finally {
    await browser.close();
    await dashboard.close();
  }
} finally {
  await demo.worker.stop();
  rmSync(dir, { recursive: true, force: true });
}
