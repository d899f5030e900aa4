// `edgeadmit review`: Kubernetes objects wrapped into the AdmissionReviews the
// kube-apiserver would send, for curl, tests and bug reports.
import { wrapReview } from "../../shared/admission/wrap.js";
import type { KubeObject } from "../../shared/snapshot/builder/index.js";
import { describeObject, identityOf } from "../objects/identity.js";
import { readObjects, sourceOf, where } from "../objects/yaml.js";
import { choice, optionalString, parseVerbArgs, stringList, fileList } from "./args.js";
import { CliError, EXIT_USAGE } from "../base/errors.js";
import type { Verb } from "./verb.js";

const OPERATIONS = ["CREATE", "UPDATE", "DELETE"] as const;

/** `Pod default/web (old.yaml:3)`: an object as a message names it. */
function named(object: KubeObject): string {
  const source = sourceOf(object);
  return `${describeObject(object)}${source ? ` (${where(source)})` : ""}`;
}

/**
 * Each old object under the identity (group, kind, namespace, name) it is
 * the old version of. Every old object must be some new object's: one that
 * matches none, or a second for the same object, is a mistake to name.
 */
function oldObjectsOf(olds: readonly KubeObject[], objects: readonly KubeObject[]): Map<string, KubeObject> {
  const wanted = new Set(objects.map(identityOf).filter((id) => id !== undefined));
  const byIdentity = new Map<string, KubeObject>();
  const unused: KubeObject[] = [];
  for (const old of olds) {
    const id = identityOf(old);
    if (id === undefined || !wanted.has(id)) unused.push(old);
    else if (byIdentity.has(id)) throw new CliError(`--old holds ${named(byIdentity.get(id)!)} twice, again at ${named(old)}`);
    else byIdentity.set(id, old);
  }
  if (unused.length > 0)
    throw new CliError(`--old: no object in -f has the group, kind, namespace and name of ${unused.map(named).join(", ")}`);
  return byIdentity;
}

export const review: Verb = {
  name: "review",
  summary: "wrap Kubernetes objects into AdmissionReview v1 requests",
  usage: `edgeadmit review -f PATH... [--operation CREATE|UPDATE|DELETE] [--namespace NS] [--old PATH...]

One AdmissionReview per object in PATH (files, directories, - for stdin): a
single object prints as indented JSON, several as one JSON per line (one
review per line: the function takes one review per request, so send them a
line at a time, as the last example does; curl -d @FILE of several lines
would send them joined, which is not JSON).
--namespace fills in namespaced objects that name none (default: default, as
kubectl apply -n does).
--old gives objects before the change: each is matched to the object in -f
with its group, kind, namespace and name, whose review becomes an UPDATE with
it as oldObject; an object without one is a CREATE, an old object that matches
none is an error. --operation sets one operation for all.

Examples:
  edgeadmit review -f pod.yaml > review.json
  curl -s http://127.0.0.1:8787/v1/demo/validate -H "authorization: Bearer $(cat .edgeadmit/demo.token)" -H 'content-type: application/json' -d @review.json
  edgeadmit review -f new/ --old old/ --namespace tenant-acme
  edgeadmit review -f pods/ | while read -r review; do curl -s http://127.0.0.1:8787/v1/demo/validate -H "authorization: Bearer $(cat .edgeadmit/demo.token)" -H 'content-type: application/json' -d "$review"; echo; done`,
  async run(argv, io) {
    const args = parseVerbArgs("review", argv, {
      file: { type: "string", short: "f", multiple: true },
      operation: { type: "string" },
      namespace: { type: "string", short: "n" },
      old: { type: "string", multiple: true },
    }, Number.MAX_SAFE_INTEGER);
    if (args.help) {
      io.out(`${this.usage}\n`);
      return 0;
    }
    const files = fileList("review", args);
    if (files.length === 0) throw new CliError("-f PATH is required (see edgeadmit review --help)", EXIT_USAGE);
    const operationFlag = optionalString(args, "operation");
    const operation = operationFlag === undefined ? undefined : choice("operation", operationFlag, OPERATIONS, "CREATE");
    const namespace = optionalString(args, "namespace");
    const objects = await readObjects(files, io, { namespace });
    if (objects.length === 0) throw new CliError(`no Kubernetes objects in ${files.join(", ")}`);
    const oldPaths = stringList(args, "old");
    const olds = oldObjectsOf(oldPaths.length > 0 ? await readObjects(oldPaths, io, { namespace }) : [], objects);
    const reviews = objects.map((object) => {
      const id = identityOf(object);
      const oldObject = id === undefined ? undefined : olds.get(id);
      return wrapReview(object, { operation: operation ?? (oldObject ? "UPDATE" : "CREATE"), ...(oldObject ? { oldObject } : {}) });
    });
    io.out(reviews.length === 1 ? `${JSON.stringify(reviews[0], null, 2)}\n` : reviews.map((r) => `${JSON.stringify(r)}\n`).join(""));
    return 0;
  },
};
