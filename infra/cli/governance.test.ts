// `edgeadmit operator keys|add|revoke|undo`, `proposals`, `approve` and
// `changes` end to end: the CLI against the real function in workerd, deployed
// with two operator keys and OPERATOR_THRESHOLD=2 (a second person for every
// widening change), as docs/operations.md recommends.
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateKeyPair } from "../../shared/signing/index.js";
import { generateToken, tokenHash } from "../../shared/tokens/index.js";
import { startLocalWorker, type LocalWorker, WORKER_START_TIMEOUT_MS } from "../../scripts/local-worker.js";
import { runCli } from "../../test/node/support/test-io.js";

const dir = mkdtempSync(join(tmpdir(), "edgeadmit-governance-"));
let worker: LocalWorker;
const keys: Array<{ file: string; publicKey: string }> = [];
const as = (index: number) => ["--endpoint", worker.url, "--operator-key", keys[index]!.file];
const short = (key: string) => `${key.slice(0, 28)}…`;

beforeAll(async () => {
  for (const name of ["alice", "bob", "carol"]) {
    const pair = await generateKeyPair();
    const file = join(dir, `${name}.key`);
    writeFileSync(file, pair.privateKeyPem, { mode: 0o600 });
    keys.push({ file, publicKey: pair.publicKey });
  }
  worker = await startLocalWorker({ clusters: {}, vars: { OPERATOR_KEYS: `${keys[0]!.publicKey} ${keys[1]!.publicKey}`, OPERATOR_THRESHOLD: "2" } });
}, WORKER_START_TIMEOUT_MS);

afterAll(async () => {
  await worker?.stop();
});

describe("a second person for every widening change", () => {
  let proposal = "";

  it("clusters add by one key is proposed, and says how to approve it", async () => {
    const cluster = await generateKeyPair();
    const hash = await tokenHash(generateToken());
    const added = await runCli(["clusters", "add", "prod-eu", ...as(0), "--public-key", cluster.publicKey, "--token-hash", hash]);
    expect(added).toEqual({ code: 0, stdout: expect.stringMatching(/^proposed as [0-9a-f-]{36}: it registers cluster prod-eu, which needs 2 operator keys; 1 more must approve \(edgeadmit approve [0-9a-f-]{36}\) before \d{4}-[^\n]*\n$/), stderr: "" });
    proposal = /^proposed as ([0-9a-f-]{36})/.exec(added.stdout)![1]!;
    const listed = await runCli(["proposals", ...as(1)]);
    expect(listed).toEqual({
      code: 0,
      stdout: expect.stringMatching(new RegExp(`^${proposal} \\(open\\): registers cluster prod-eu\\n  proposed by ed25519:.{20}… at \\d{4}-[^,]+, expires \\d{4}-[^\\n]+\\n  approved by ed25519:.{20}…: 1 of 2\\n$`)),
      stderr: "1 proposal waiting; a widening change needs 2 distinct keys\n",
    });
  });

  it("approve shows the change whole, asks (no terminal here: --yes), and applies it signed by both keys", async () => {
    const unasked = await runCli(["approve", proposal, ...as(1)]);
    expect(unasked.code).toBe(2);
    expect(unasked.stdout).toContain(`${proposal} (open): registers cluster prod-eu\n`);
    expect(unasked.stdout).toContain('"op": "add"');
    expect(unasked.stderr).toBe(`edgeadmit approve: approve ${proposal}: pass --yes to go ahead (no terminal to ask on); nothing was sent (see edgeadmit approve --help)\n`);
    const approved = await runCli(["approve", proposal, ...as(1), "--yes"]);
    expect(approved.code).toBe(0);
    expect(approved.stdout).toMatch(new RegExp(`applied ${proposal} as change \\d+, signed by ${short(keys[0]!.publicKey).replace(/[+/.…]/g, "\\$&")}, ${short(keys[1]!.publicKey).replace(/[+/.…]/g, "\\$&")}\\n$`));
    const log = await runCli(["changes", ...as(0), "--cluster", "prod-eu"]);
    expect(log).toEqual({ code: 0, stdout: expect.stringMatching(/^#\d+ \d{4}-[^ ]+ registry add prod-eu \[ed25519:[^\]]+, ed25519:[^\]]+\]\n$/), stderr: "1 change\n" });
  });

  it("operator add of a third key waits for a second; operator keys lists what is trusted", async () => {
    const proposed = await runCli(["operator", "add", keys[2]!.publicKey, ...as(0)]);
    expect(proposed.stdout).toMatch(/^proposed as [0-9a-f-]{36}: it adds operator key ed25519:/);
    const id = /^proposed as ([0-9a-f-]{36})/.exec(proposed.stdout)![1]!;
    expect((await runCli(["approve", id, ...as(1), "--yes"])).code).toBe(0);
    const listed = await runCli(["operator", "keys", ...as(2)]);
    expect(listed).toEqual({
      code: 0,
      stdout: `root     ${keys[0]!.publicKey}\nroot     ${keys[1]!.publicKey}\nadded    ${keys[2]!.publicKey} (you)\n`,
      stderr: "a change that widens access or changes enforcement needs 2 distinct keys (OPERATOR_THRESHOLD)\n",
    });
  });

  it("operator revoke takes one key and lists what the key signed; operator undo shows its plan and needs --yes", async () => {
    const revoked = await runCli(["operator", "revoke", keys[2]!.publicKey, ...as(0)]);
    expect(revoked).toEqual({ code: 0, stdout: expect.stringMatching(new RegExp(`^revoked ${keys[2]!.publicKey.replace(/[+/]/g, "\\$&")} \\(change \\d+\\): its signatures are refused from now on\\n$`)), stderr: "it signed no change on record\n" });
    expect((await runCli(["operator", "keys", ...as(2)])).code).toBe(1);
    expect(await runCli(["operator", "undo", keys[2]!.publicKey, ...as(0)])).toEqual({ code: 0, stdout: "", stderr: "nothing to undo: the revoked keys signed no change alone\n" });
    expect((await runCli(["operator", "undo", keys[0]!.publicKey, ...as(1)])).stderr).toMatch(/^edgeadmit operator undo: the function refused the undo \(409\): operator key ed25519:.{16}… is not revoked: revoke it first \(edgeadmit operator revoke\); nothing changed\n$/);
  });

  it("a dry run says a widening change would wait for a second key; a fleet change is confirmed before it is even proposed", async () => {
    const cluster = await generateKeyPair();
    const dry = await runCli(["clusters", "add", "prod-us", ...as(0), "--public-key", cluster.publicKey, "--anonymous", "--dry-run"]);
    expect([dry.code, dry.stdout.split("\n").slice(2), dry.stderr]).toEqual([
      0,
      [
        "would register prod-us: 1 signing key, anonymous reviews allowed (never on the internet), withoutSnapshot FailOpen, maxAgeSeconds 86400",
        "it would be proposed, not applied: it registers cluster prod-us, which needs 2 operator keys (edgeadmit approve)",
        "",
      ],
      "dry run: nothing sent\n",
    ]);
    const narrowing = await runCli(["clusters", "rotate", "prod-eu", ...as(0), "--without-snapshot", "FailClosed", "--dry-run"]);
    expect(narrowing.stdout).not.toContain("proposed");

    const fleet = join(dir, "fleet");
    mkdirSync(fleet);
    // examples/fleet's require-team, bound on every cluster (prod-eu has no labels).
    const policy = readFileSync(join(__dirname, "..", "..", "examples", "fleet", "require-team.yaml"), "utf8").split("\n---\n")[0]!;
    writeFileSync(join(fleet, "set.yaml"), `${policy}\n---\napiVersion: edgeadmit.io/v1alpha1\nkind: EdgeAdmissionPolicyBinding\nmetadata: {name: everywhere}\nspec: {policyName: require-team, clusterSelector: {}, validationActions: [Deny]}\n`);
    const plan = "+ EdgeAdmissionPolicyBinding everywhere\n+ ValidatingAdmissionPolicy require-team\non the 1 cluster in the registry: changes what 1 cluster enforces\n  binds require-team on 1 more cluster (Deny)\n";
    expect((await runCli(["fleet", "apply", "-f", fleet, ...as(0)])).code).toBe(2);
    expect(await runCli(["fleet", "apply", "-f", fleet, ...as(0), "--dry-run"])).toEqual({
      code: 0,
      stdout: `${plan}it would be proposed, not applied: it replaces the fleet policy set, which needs 2 operator keys (edgeadmit approve)\n`,
      stderr: "dry run: nothing sent; fleet revision 0 stays in effect\n",
    });
    const proposed = await runCli(["fleet", "apply", "-f", fleet, ...as(0), "--yes"]);
    expect(proposed).toEqual({ code: 0, stdout: expect.stringMatching(new RegExp(`^${plan.replace(/[+()]/g, "\\$&")}proposed as [0-9a-f-]{36}: it replaces the fleet policy set, which needs 2 operator keys; `)), stderr: "" });
  });

  it("refuses a time it cannot read, before sending anything", async () => {
    expect(await runCli(["changes", ...as(0), "--since", "yesterday"])).toEqual({
      code: 2,
      stdout: "",
      stderr: 'edgeadmit changes: --since must be a time (2026-11-28T10:00:00Z, or 2026-11-28) or how long ago (30m, 24h, 7d), not "yesterday"\n',
    });
  });
});
