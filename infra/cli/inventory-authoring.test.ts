// Inventory policies as an author meets them offline (issue 27): a declaration
// that does not hold fails the policy by its failurePolicy in check and test
// as in the function (test/worker/inventory.test.ts), and is reported; cluster
// objects given with --policies are inventory as they are with -f.
import { mkdtempSync, readFileSync, writeFileSync, copyFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runBuild, runCli } from "../../test/node/support/test-io.js";

const EXAMPLE = join(__dirname, "..", "..", "examples", "inventory", "unique-ingress-host");
const policy = readFileSync(join(EXAMPLE, "policy.yaml"), "utf8");
const scratch = mkdtempSync(join(tmpdir(), "edgeadmit-inventory-"));
// The typo of issue 27: hostTaken for hostsTaken; the stand-in `[]` would let a duplicate host through.
const typo = join(scratch, "policy.yaml");
writeFileSync(typo, policy.replace("        hostsTaken: >-", "        hostTaken: >-"));
for (const file of ["cluster.yaml", "requests.yaml", "edgeadmit-test.yaml"]) copyFileSync(join(EXAMPLE, file), join(scratch, file));
const PROBLEM = `ValidatingAdmissionPolicy 'unique-ingress-host': metadata.annotations["edgeadmit.io/inventory"]: variables.hostTaken: spec.variables declares no variable of that name (the annotation replaces a declared variable's expression at the edge; did you mean "hostsTaken"?)`;

describe("a declaration that does not hold", () => {
  it("check: the policy fails closed under failurePolicy Fail (every Ingress denied, saying why), and the problem is a warning", async () => {
    const { code, stdout, stderr } = await runCli(["check", "-f", join(scratch, "requests.yaml"), "--policies", typo, "--policies", join(scratch, "cluster.yaml")]);
    expect(code).toBe(1);
    expect(stderr).toBe(`warning: ${PROBLEM}\n`);
    expect(stdout).toContain("3 objects checked: 3 Deny, 0 Warn, 0 Audit");
    const { stdout: json } = await runCli(["check", "-f", join(scratch, "requests.yaml"), "--policies", typo, "--policies", join(scratch, "cluster.yaml"), "-o", "json"]);
    const messages = (JSON.parse(json) as { objects: Array<{ results: Array<{ message: string }> }> }).objects.map((object) => object.results.map((result) => result.message));
    const denied = `ValidatingAdmissionPolicy 'unique-ingress-host' with binding 'unique-ingress-host' denied request: compilation error: ${PROBLEM.slice("ValidatingAdmissionPolicy 'unique-ingress-host': ".length)}`;
    expect(messages).toEqual([[denied], [denied], [denied]]);
  });

  it("test: the suite's pass expectations fail, and the problem is a warning", async () => {
    const { code, stdout, stderr } = await runCli(["test", join(scratch, "edgeadmit-test.yaml")]);
    expect(code).toBe(1);
    expect(stderr).toBe(`warning: ${PROBLEM}\n`);
    expect(stdout).toContain("  FAIL  Ingress/docs  unique-ingress-host  pass");
    expect(stdout).toMatch(/5 expectations: 0 passed, 5 failed\n$/);
  });
});

describe("--policies cluster.yaml is inventory", () => {
  it("denies what -f cluster.yaml denies", async () => {
    const asInput = await runCli(["check", "-f", join(EXAMPLE, "requests.yaml"), "-f", join(EXAMPLE, "cluster.yaml"), "--policies", join(EXAMPLE, "policy.yaml"), "--one-cluster"]);
    const asPolicies = await runCli(["check", "-f", join(EXAMPLE, "requests.yaml"), "--policies", join(EXAMPLE, "cluster.yaml"), "--policies", join(EXAMPLE, "policy.yaml")]);
    const denial = "Ingress staging/web-copy  unique-ingress-host  Deny  ValidatingAdmissionPolicy 'unique-ingress-host' with binding 'unique-ingress-host' denied request: host www.shop.example.com is already served by Ingress shop/web: one host, one Ingress";
    expect(asInput.code).toBe(1);
    expect(asInput.stdout).toContain(denial);
    expect(asPolicies).toMatchObject({ code: 1, stderr: "" });
    expect(asPolicies.stdout).toContain(denial);
    expect(asPolicies.stdout).toContain("3 objects checked: 1 Deny, 0 Warn, 0 Audit");
  });
});

describe("a kind declared at one version, objects written at another", () => {
  it("offline, objects written at another served version are read at the declared one, with a note saying how", async () => {
    const older = join(scratch, "cluster-v1beta1.yaml");
    writeFileSync(older, readFileSync(join(EXAMPLE, "cluster.yaml"), "utf8").replaceAll("apiVersion: networking.k8s.io/v1\n", "apiVersion: networking.k8s.io/v1beta1\n"));
    const { code, stdout, stderr } = await runCli(["check", "-f", join(EXAMPLE, "requests.yaml"), "--policies", older, "--policies", join(EXAMPLE, "policy.yaml")]);
    expect(code).toBe(1);
    expect(stdout).toContain("denied request: host www.shop.example.com is already served by Ingress shop/web: one host, one Ingress");
    expect(stderr).toBe(
      SERVED_NOTE,
    );
  });

  it("test and snapshot build -f read them the same way", async () => {
    const dir = mkdtempSync(join(tmpdir(), "edgeadmit-served-"));
    for (const file of ["policy.yaml", "requests.yaml"]) copyFileSync(join(EXAMPLE, file), join(dir, file));
    writeFileSync(join(dir, "cluster.yaml"), readFileSync(join(EXAMPLE, "cluster.yaml"), "utf8").replaceAll("apiVersion: networking.k8s.io/v1\n", "apiVersion: networking.k8s.io/v1beta1\n"));
    // The first suite only: the second judges the cluster's own (now v1beta1) Ingresses, which no policy matches.
    writeFileSync(join(dir, "edgeadmit-test.yaml"), readFileSync(join(EXAMPLE, "edgeadmit-test.yaml"), "utf8").split("\n---\n")[0]!);
    const suite = await runCli(["test", join(dir, "edgeadmit-test.yaml")]);
    expect(suite.stderr).toBe(SERVED_NOTE);
    expect(suite.stdout).toMatch(/3 expectations: 3 passed, 0 failed\n$/);
    expect(suite.code).toBe(0);
    const built = await runBuild(["snapshot", "build", "-f", join(dir, "policy.yaml"), join(dir, "cluster.yaml")]);
    expect(built.code).toBe(0);
    expect(built.stderr).toContain(SERVED_NOTE);
    const inventory = (JSON.parse(built.stdout) as { inventory: Record<string, { objects: Record<string, { apiVersion: string }> }> }).inventory;
    expect(Object.keys(inventory["networking.k8s.io/v1/Ingress"]!.objects).sort()).toEqual(["blog/blog", "shop/web"]);
  });
});

describe("an Ingress host the apiserver refuses (issue 27)", () => {
  // networking/v1 validation holds every host of an Ingress to a lowercase DNS-1123 subdomain, `*.` allowed in front:
  // kubernetes/kubernetes pkg/apis/networking/validation/validation.go validateIngressRules and validateIngressTLS,
  // k8s.io/apimachinery pkg/util/validation/validation.go:198 IsDNS1123Subdomain, :252 IsWildcardDNS1123Subdomain.
  // No cluster holds such an Ingress, so offline it is left out of the inventory too, with a warning, not a silent miss.
  const upper = join(scratch, "cluster-uppercase.yaml");
  writeFileSync(upper, readFileSync(join(EXAMPLE, "cluster.yaml"), "utf8").replace("host: www.shop.example.com", "host: WWW.Shop.Example.com"));
  const WARNING =
    'warning: Ingress.networking.k8s.io shop/web: spec.rules[1].host "WWW.Shop.Example.com" is not a lowercase DNS subdomain, which the apiserver refuses: left out of the inventory, as no cluster can hold it (write it "www.shop.example.com")\n';

  it("check warns, and judges as a cluster would: without that Ingress", async () => {
    const { code, stdout, stderr } = await runCli(["check", "-f", join(EXAMPLE, "requests.yaml"), "--policies", upper, "--policies", join(EXAMPLE, "policy.yaml")]);
    expect(stderr).toBe(WARNING);
    expect(stdout).toContain("3 objects checked: 0 Deny, 0 Warn, 0 Audit");
    expect(code).toBe(0);
  });

  it("test and snapshot build -f warn the same, and a TLS host is held to the same rule (a wildcard in front is a host)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "edgeadmit-hosts-"));
    for (const file of ["policy.yaml", "requests.yaml"]) copyFileSync(join(EXAMPLE, file), join(dir, file));
    copyFileSync(upper, join(dir, "cluster.yaml"));
    writeFileSync(join(dir, "edgeadmit-test.yaml"), readFileSync(join(EXAMPLE, "edgeadmit-test.yaml"), "utf8").split("\n---\n")[0]!);
    const suite = await runCli(["test", join(dir, "edgeadmit-test.yaml")]);
    expect(suite.stderr).toBe(WARNING);
    // The suite was written for a cluster that serves www.shop.example.com; this one cannot.
    expect(suite.stdout).toContain("  FAIL  Ingress/web-copy  unique-ingress-host  deny");
    expect(suite.stdout).toMatch(/3 expectations: 2 passed, 1 failed\n$/);
    expect(suite.code).toBe(1);
    const tls = join(dir, "tls.yaml");
    writeFileSync(
      tls,
      "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {name: tls, namespace: blog}\nspec:\n  tls:\n  - hosts: ['*.blog.example.com', 'Blog_Example']\n  rules:\n  - host: '*.blog.example.com'\n",
    );
    const built = await runBuild(["snapshot", "build", "-f", join(dir, "policy.yaml"), join(dir, "cluster.yaml"), tls]);
    expect(built.code).toBe(0);
    expect(built.stderr).toContain(WARNING);
    expect(built.stderr).toContain(
      'warning: Ingress.networking.k8s.io blog/tls: spec.tls[0].hosts[1] "Blog_Example" is not a lowercase DNS subdomain, which the apiserver refuses: left out of the inventory, as no cluster can hold it (an index lookup matches a host exactly)\n',
    );
    const inventory = (JSON.parse(built.stdout) as { inventory: Record<string, { objects: Record<string, unknown> }> }).inventory;
    expect(Object.keys(inventory["networking.k8s.io/v1/Ingress"]!.objects)).toEqual(["blog/blog"]);
  });
});

const SERVED_NOTE =
  "note: 2 objects written as networking.k8s.io/v1beta1 Ingress read into the inventory at the version the policies declare: offline there is no apiserver to convert between served versions, so the fields are taken as written\n";
