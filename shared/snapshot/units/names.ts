// The names of storage units: the cluster part's, a namespace's shard's (the
// namespace), and the families of derived units, each a prefix holding "/"
// (which no namespace's name has) and a Kubernetes name of its kind; which
// names are valid, and how messages name a unit.
import { INDEX_BUCKETS, INVENTORY_INDEX_UNIT, INVENTORY_KIND_UNIT } from "../../inventory/units.js";
import { isNamespaceName, isSubdomainName, MAX_LABEL_NAME, MAX_SUBDOMAIN_NAME } from "../../k8s/names/index.js";
import { classReferencesSchema, inventoryBucketSchema, inventoryDirectorySchema } from "./schemas.js";

/** The unit name of the cluster part; a namespace's shard is named by the namespace, never empty and never holding "/". */
export const CLUSTER_UNIT = "";
/** Units of the class reference index are named `affinityclass/<class>`: a "/" no namespace name has. */
const CLASS_REFERENCES_UNIT = "affinityclass/";
export const classReferencesUnit = (className: string) => `${CLASS_REFERENCES_UNIT}${className}`;
/** Longest unit (namespace) name the function stores: a DNS subdomain's limit, above a namespace's 63. */
export const MAX_UNIT_NAME = 253;

/** `<group>/<version>/<Kind>` or `<version>/<Kind>`: a DNS subdomain, a DNS label, and a kind (a CRD's kind lowercased is a DNS-1035 label: apiextensions validation). */
function isKindKey(key: string): boolean {
  const parts = key.split("/");
  if (parts.length < 2 || parts.length > 3) return false;
  const kind = parts.at(-1)!;
  const version = parts.at(-2)!;
  return (parts.length === 2 || isSubdomainName(parts[0]!)) && isNamespaceName(version) && kind.length <= MAX_LABEL_NAME && /^[A-Za-z]([-A-Za-z0-9]*[A-Za-z0-9])?$/.test(kind);
}

/**
 * The units besides the cluster part and the namespaces' shards, each named
 * with a prefix that holds "/", which no namespace's name has; what follows
 * the prefix is a Kubernetes name of its kind.
 */
const FAMILIES = [
  {
    prefix: CLASS_REFERENCES_UNIT,
    valid: isSubdomainName,
    expected: `an AffinityClass's name: a lowercase RFC 1123 subdomain of at most ${MAX_SUBDOMAIN_NAME} characters`,
    schema: classReferencesSchema,
    describe: (rest: string) => `the references of AffinityClass ${rest}`,
  },
  {
    prefix: INVENTORY_INDEX_UNIT,
    valid: (rest: string) => rest.length <= String(INDEX_BUCKETS - 1).length && /^\d+$/.test(rest),
    expected: `a bucket number from 0 to ${INDEX_BUCKETS - 1}`,
    schema: inventoryBucketSchema,
    describe: (rest: string) => `bucket ${rest} of the inventory's indexes`,
  },
  {
    prefix: INVENTORY_KIND_UNIT,
    valid: isKindKey,
    expected: "<group>/<version>/<Kind> or <version>/<Kind>, as Kubernetes names them",
    schema: inventoryDirectorySchema,
    describe: (rest: string) => `the namespaces of inventory kind ${rest}`,
  },
] as const;

export const familyOf = (name: string) => FAMILIES.find((family) => name.startsWith(family.prefix));

/**
 * Why no stored unit can have this name, or undefined: a namespace's shard is
 * named by a Namespace's name (a DNS label, ValidateNamespaceName), the other
 * families by their prefix and a name of their kind. Names are checked before
 * anything is stored under them, so storage holds no name a cluster cannot have.
 */
export function unitNameProblem(name: string): string | undefined {
  if (name === CLUSTER_UNIT) return undefined;
  const family = familyOf(name);
  if (family) return family.valid(name.slice(family.prefix.length)) ? undefined : `unit name must be ${JSON.stringify(family.prefix)} and ${family.expected}`;
  return isNamespaceName(name)
    ? undefined
    : `a namespace's shard is named by the namespace: a lowercase RFC 1123 label of at most ${MAX_LABEL_NAME} characters (lowercase letters, digits and '-', starting and ending with a letter or digit)`;
}

/** A unit as messages name it. */
export function describeUnit(name: string): string {
  if (name === CLUSTER_UNIT) return "the cluster-wide part";
  const family = familyOf(name);
  return family ? family.describe(name.slice(family.prefix.length)) : `the shard of namespace ${name}`;
}
