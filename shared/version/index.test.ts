import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SNAPSHOT_API_VERSION } from "../snapshot/schema.js";
import { describePeer, nextMinorRelease, oldestServed, readsStateOf, served, parseRelease, peerOf, RELEASE, RELEASES, skewProblem, userAgent } from "./index.js";

const at = (text: string) => parseRelease(text)!;

describe("releases", () => {
  it("package.json carries this release, the last of the table, and every release is semver in order", () => {
    const pkg = JSON.parse(readFileSync(join(__dirname, "..", "..", "package.json"), "utf8")) as { version: string };
    expect(pkg.version).toBe(RELEASE);
    expect(RELEASES.at(-1)!.version).toBe(RELEASE);
    const ordered = RELEASES.map((release) => at(release.version)).map((r) => r.major * 1e6 + r.minor * 1e3 + r.patch);
    expect(ordered).toEqual([...ordered].sort((a, b) => a - b));
    // Only this release may lack its commit: every earlier one was cut.
    expect(RELEASES.slice(0, -1).every((release) => /^[0-9a-f]{7,40}$/.test(release.commit ?? ""))).toBe(true);
  });

  it("parses semver, and refuses what is not", () => {
    expect(parseRelease("0.2.0")).toEqual({ major: 0, minor: 2, patch: 0, text: "0.2.0" });
    expect(parseRelease("1.10.3-rc.1")).toEqual({ major: 1, minor: 10, patch: 3, text: "1.10.3-rc.1" });
    for (const bad of ["0.2", "v0.2.0", "01.2.0", "0.2.0 ", "0.2.0+build", ""]) expect(parseRelease(bad)).toBeUndefined();
  });
});

describe("the wire", () => {
  it("the function reads the push apiVersion of every release it serves (a new one fails here until it does)", () => {
    const servedReleases = RELEASES.filter((release) => served(at(release.version), at(RELEASE)));
    expect(new Set(servedReleases.map((release) => release.pushApiVersion))).toEqual(new Set([SNAPSHOT_API_VERSION]));
  });
});

describe("peers", () => {
  it("reads the release, verb and commit a User-Agent names, as userAgent writes them", () => {
    expect(peerOf(userAgent("0.2.0", "sync", "1a2b3c4"))).toEqual({ release: at("0.2.0"), verb: "sync", commit: "1a2b3c4", named: true });
    expect(peerOf(userAgent("0.3.1", "clusters list", undefined))).toEqual({ release: at("0.3.1"), verb: "clusters list", commit: undefined, named: true });
  });

  it("takes any other User-Agent, or none, as a peer of 0.1.0 or older: the releases that sent none", () => {
    for (const header of [undefined, null, "", "curl/8.5.0", "node", "edgeadmit/banana (sync)", `edgeadmit/0.2.0 (${"x".repeat(300)})`]) {
      const peer = peerOf(header);
      expect(peer).toEqual({ release: at("0.1.0"), verb: undefined, commit: undefined, named: false });
      expect(describePeer(peer)).toBe("0.1.0 or older (it named no release)");
    }
  });
});

describe("the skew window", () => {
  it("serves this release and the two minor releases before it, as far as there were any", () => {
    expect(oldestServed(at("0.2.0"))).toBe("0.1");
    expect(oldestServed(at("0.1.0"))).toBe("0.1");
    // The next releases' windows, known before they are cut: 0.3 still serves 0.1; 0.4 no longer does.
    expect(oldestServed(at("0.3.0"))).toBe("0.1");
    expect(oldestServed(at("0.4.0"))).toBe("0.2");
    expect(nextMinorRelease(at("0.2.5"))).toEqual(at("0.3.0"));
    expect(served(at("0.1.0"), at("0.3.0"))).toBe(true);
    expect(served(at("0.1.0"), at("0.4.0"))).toBe(false);
    expect(served(at("0.5.0"), at("0.4.0"))).toBe(false);
  });

  it("reads what the releases of its window stored, and what the next one stored (a rollback), nothing further", () => {
    expect(readsStateOf(at("0.1.0"), at("0.2.0"))).toBe(true);
    expect(readsStateOf(at("0.2.3"), at("0.2.0"))).toBe(true);
    expect(readsStateOf(at("0.3.0"), at("0.2.0"))).toBe(true);
    expect(readsStateOf(at("0.4.0"), at("0.2.0"))).toBe(false);
    expect(readsStateOf(at("0.1.0"), at("0.4.0"))).toBe(false);
    expect(readsStateOf(at("1.0.0"), at("0.2.0"))).toBe(false);
  });

  it("serves a peer of this release, of an older one in the window, and one that names none (0.1.0)", () => {
    for (const header of [userAgent(RELEASE, "sync", undefined), userAgent("0.1.0", "sync", undefined), userAgent("0.2.7", "fleet apply", undefined), "curl/8.5.0"])
      expect(skewProblem(peerOf(header), at("0.2.0"))).toBeUndefined();
  });

  it("refuses a peer newer than the function, naming both releases and the order of an upgrade", () => {
    expect(skewProblem(peerOf(userAgent("0.3.0", "sync", undefined)), at("0.2.0"))).toBe(
      'the sync job (sync 0.3.0) is newer than the function (0.2.0): upgrade the function first (wrangler deploy), then the sync jobs and CLIs (docs/operations.md, "Upgrading")',
    );
    expect(skewProblem(peerOf(userAgent("1.0.0", "clusters add", undefined)), at("0.2.0"))).toMatch(/^this edgeadmit \(clusters add 1\.0\.0\) is newer than the function \(0\.2\.0\)/);
  });

  it("refuses a sync job older than the window, naming both releases and the CronJob to upgrade", () => {
    expect(skewProblem(peerOf(userAgent("0.0.9", "sync", undefined)), at("0.2.0"))).toBe(
      "the sync job (sync 0.0.9) is older than the function (0.2.0) serves: it serves releases 0.1 to 0.2; upgrade the cluster's CronJob edgeadmit-sync (namespace edgeadmit-system) to 0.2.0: kubectl -n edgeadmit-system set image cronjob/edgeadmit-sync edgeadmit=<registry>/edgeadmit:0.2.0, or apply the release's infra/k8s (docs/operations.md, \"Upgrading\")",
    );
    expect(skewProblem(peerOf(userAgent("0.0.9", "fleet apply", undefined)), at("0.2.0"))).toMatch(/; use the edgeadmit CLI of 0\.2\.0 \(docs/);
  });
});
