// `edgeadmit review`: Kubernetes objects wrapped into the AdmissionReviews the
// kube-apiserver would send, for curl, tests and bug reports.
import { wrapReview, type WrapOptions } from "../../shared/admission/wrap.js";
import { readObjects } from "../objects/yaml.js";
import { choice, optionalString, parseVerbArgs, stringList } from "./args.js";
import { CliError, EXIT_USAGE } from "./errors.js";
import type { Verb } from "./verb.js";

const OPERATIONS = ["CREATE", "UPDATE", "DELETE"] as const;

export const review: Verb = {
  name: "review",
  summary: "wrap Kubernetes objects into AdmissionReview v1 requests",
  usage: `edgeadmit review -f PATH... [--operation CREATE|UPDATE|DELETE] [--namespace NS] [--old PATH]

One AdmissionReview per object in PATH (files, directories, - for stdin): a
single object prints as indented JSON, several as one JSON per line.
--namespace fills in namespaced objects that name none (default: default, as
kubectl apply -n does).
--old names the object before the change (one object); it makes the operation
UPDATE unless --operation says otherwise.

Examples:
  edgeadmit review -f pod.yaml > review.json
  curl -s http://127.0.0.1:8787/v1/demo/validate -H 'content-type: application/json' -d @review.json
  edgeadmit review -f new.yaml --old old.yaml --namespace tenant-acme`,
  async run(argv, io) {
    const args = parseVerbArgs("review", argv, {
      file: { type: "string", short: "f", multiple: true },
      operation: { type: "string" },
      namespace: { type: "string", short: "n" },
      old: { type: "string" },
    });
    if (args.help) {
      io.out(`${this.usage}\n`);
      return 0;
    }
    const files = stringList(args, "file");
    if (files.length === 0) throw new CliError("-f PATH is required (see edgeadmit review --help)", EXIT_USAGE);
    const oldPath = optionalString(args, "old");
    const operation = choice("operation", optionalString(args, "operation"), OPERATIONS, oldPath ? "UPDATE" : "CREATE");
    const options: WrapOptions = { operation };
    const namespace = optionalString(args, "namespace");
    if (oldPath) {
      const old = await readObjects([oldPath], io, { namespace });
      if (old.length !== 1) throw new CliError(`--old ${oldPath}: expected one object, found ${old.length}`);
      options.oldObject = old[0]!;
    }
    const objects = await readObjects(files, io, { namespace });
    if (objects.length === 0) throw new CliError(`no Kubernetes objects in ${files.join(", ")}`);
    const reviews = objects.map((object) => wrapReview(object, options));
    io.out(reviews.length === 1 ? `${JSON.stringify(reviews[0], null, 2)}\n` : reviews.map((r) => `${JSON.stringify(r)}\n`).join(""));
    return 0;
  },
};
