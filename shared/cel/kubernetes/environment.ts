// The apiserver's CEL environment of each Kubernetes version, built as
// k8s.io/apiserver/pkg/cel/environment/base.go builds it: every library with
// the version that introduced it (and, where one replaced another, the
// version that removed it). A cluster's policies are stored expressions: its
// apiserver compiles them with everything its own version has (the
// StoredExpressions environment). A new expression is checked against the
// compatibility version, one minor below the apiserver's own by default
// (the NewExpressions environment), so that a rollback can still run it.
//
//   createEnv({ ...environmentFor({ major: 1, minor: 33 }, "stored").options, variables });
//
// Versions outside the supported range use its nearest end: older clusters
// than OLDEST_VERSION are out of support upstream too, and a newer one than
// NEWEST_VERSION gets the newest environment this build knows.

import type { Library } from "../declarations/index.js";
import type { EnvOptions } from "../index.js";
import type { RegexLibrary } from "../regex/index.js";
import { cidrLibrary } from "./cidr/index.js";
import { extListsLibrary } from "./extlists/index.js";
import { formatLibrary } from "./format/index.js";
import { ipLibrary } from "./ip/index.js";
import { listsLibrary } from "./lists/index.js";
import { quantityLibrary } from "./quantity/index.js";
import { regexLibrary } from "./regex/index.js";
import { semverLibrary } from "./semver/index.js";
import { setsLibrary } from "./sets/index.js";
import { urlLibrary } from "./url/index.js";

export interface KubernetesVersion {
  readonly major: number;
  readonly minor: number;
}

/** NewExpressions: what a new or changed expression may use; StoredExpressions: what a stored one may use. */
export type EnvironmentMode = "new" | "stored";

export const OLDEST_VERSION: KubernetesVersion = { major: 1, minor: 30 };
/** The newest version whose environment this build knows (the newest in Kubernetes' own test tables). */
export const NEWEST_VERSION: KubernetesVersion = { major: 1, minor: 37 };
/**
 * The version of a cluster whose snapshot does not say (one written before
 * snapshots carried it: the next sync replaces it) and of offline checks
 * without --kubernetes-version. Below the newest minors on purpose: an
 * offline check then accepts only what the maintained clusters accept too
 * (ext.Lists, containsCIDR by overlap), not what only the newest one has.
 */
export const DEFAULT_VERSION: KubernetesVersion = { major: 1, minor: 34 };

type Entry = { readonly introduced: number; readonly removed?: number; readonly library: Library | RegexLibrary };

/**
 * base.go's baseOpts, by minor version of Kubernetes 1.x (the ones a
 * supported cluster can lack; libraries every supported version has are
 * listed at 0). cel-go's standard library, optional types (1.28), strings v2
 * (1.29) and cross-type numeric comparisons (1.28) are in every env createEnv
 * makes. base.go:90 library.Lists v0 until 1.37, base.go:186 v1 (includes) from it.
 */
const BASE: readonly Entry[] = [
  { introduced: 0, removed: 37, library: listsLibrary(0) },
  { introduced: 37, library: listsLibrary(1) },
  { introduced: 0, library: urlLibrary },
  { introduced: 0, library: regexLibrary },
  { introduced: 28, library: quantityLibrary },
  { introduced: 29, library: setsLibrary },
  { introduced: 30, library: ipLibrary },
  // cidr.go's containsCIDR compares by overlap since 1.33 (kubernetes/apiserver 64791740a, in v1.33.0); before, only an equal masked address.
  { introduced: 30, removed: 33, library: cidrLibrary("masked-equal") },
  { introduced: 33, library: cidrLibrary("overlaps") },
  { introduced: 31, library: formatLibrary },
  { introduced: 33, library: semverLibrary },
  // base.go:179 ext.Lists(ext.ListsVersion(3)).
  { introduced: 34, library: extListsLibrary },
];

/** What createEnv needs beyond the variables to build this version's environment: every caller spreads it, so none lists the options again. */
export interface KubernetesEnvOptions extends EnvOptions {
  readonly libraries: readonly (Library | RegexLibrary)[];
  /** base.go:165 ext.TwoVarComprehensions, from Kubernetes 1.32. */
  readonly twoVariableComprehensions: boolean;
  /** base.go's baseOpts never add ext.Bindings: cel.bind does not compile in any version. */
  readonly bindings: false;
}

export interface KubernetesEnvironment {
  /** The apiserver version whose environment this is, after clamping to the supported range. */
  readonly version: KubernetesVersion;
  /** The options of createEnv, less the variables (`variables` is empty here). */
  readonly options: KubernetesEnvOptions;
}

const clamp = (v: KubernetesVersion): number => {
  const minor = v.major < 1 ? 0 : v.major > 1 ? Infinity : v.minor;
  return Math.min(Math.max(minor, OLDEST_VERSION.minor), NEWEST_VERSION.minor);
};

/** One environment per (minor, mode): a fixed set, never keyed by anything else. */
const built = new Map<string, KubernetesEnvironment>();

/** The environment an apiserver of `version` compiles `mode` expressions with. */
export function environmentFor(version: KubernetesVersion, mode: EnvironmentMode): KubernetesEnvironment {
  const own = clamp(version);
  // environment.go:257: NewExpressions at the compatibility version, by default one minor below the apiserver's.
  const minor = mode === "new" ? Math.max(own - 1, OLDEST_VERSION.minor) : own;
  const key = `${own}/${mode}`;
  const cached = built.get(key);
  if (cached !== undefined) return cached;
  const environment: KubernetesEnvironment = {
    version: { major: 1, minor: own },
    options: {
      variables: [],
      libraries: BASE.filter((e) => e.introduced <= minor && (e.removed === undefined || minor < e.removed)).map((e) => e.library),
      twoVariableComprehensions: minor >= 32,
      bindings: false,
    },
  };
  built.set(key, environment);
  return environment;
}

/** "1.33" for a version. */
export const versionText = (v: KubernetesVersion): string => `${v.major}.${v.minor}`;

/** A version from "1.33", "v1.33.2" or /version's {major, minor} ("1", "33+"); undefined when it names none. */
export function parseVersion(text: string): KubernetesVersion | undefined {
  const m = /^v?(\d{1,3})\.(\d{1,3})(?:[.+-].*)?$/.exec(text.trim());
  return m === null ? undefined : { major: Number(m[1]), minor: Number(m[2]) };
}
