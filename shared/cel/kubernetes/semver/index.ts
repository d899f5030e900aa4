// Kubernetes' semver library (k8s.io/apiserver/pkg/cel/library/semverlib.go,
// base environment 1.33+): semver(<string>[, <bool> normalize]) <Semver>,
// isSemver(<string>[, <bool>]), and on a Semver major(), minor(), patch(),
// isGreaterThan, isLessThan, compareTo. Parsing and ordering are
// github.com/blang/semver/v4's Parse and Compare, with its error texts;
// normalizing is the library's normalizeAndParse (drop a leading "v", pad
// major or major.minor with zeros, drop leading zeros). Equality ignores
// build metadata, as Compare does.

import { chargeCreated, chargeTraversal, costSize, type CallContext, type Library, type OverloadDecl } from "../../declarations/index.js";
import { CelType, EvalError, intOf, LibraryValue, noSuchOverload, type Value } from "../../values/index.js";
import { member, parses } from "../overloads.js";
import { quoteCapped } from "../quote.js";

const SEMVER_TYPE = new CelType("kubernetes.Semver");

/** A prerelease identifier: numeric ones order numerically and before alphanumeric ones. */
type PreRelease = bigint | string;

interface Version {
  major: bigint;
  minor: bigint;
  patch: bigint;
  pre: PreRelease[];
  build: string[];
}

class SemverValue extends LibraryValue {
  readonly celType = SEMVER_TYPE;
  constructor(readonly version: Version) {
    super();
  }
  equals(other: LibraryValue): boolean {
    return other instanceof SemverValue && compareVersions(this.version, other.version) === 0;
  }
  override toString(): string {
    const { major, minor, patch, pre, build } = this.version;
    return `${major}.${minor}.${patch}${pre.length > 0 ? `-${pre.join(".")}` : ""}${build.length > 0 ? `+${build.join(".")}` : ""}`;
  }
}

const NUMBERS = /^[0-9]+$/;
const ALPHANUMERIC = /^[0-9A-Za-z-]+$/;
const UINT64_MAX = 2n ** 64n - 1n;
const hasLeadingZeroes = (s: string) => s.length > 1 && s[0] === "0";

/** strconv.ParseUint(s, 10, 64) on digits. */
function parseUint(s: string): bigint {
  const n = BigInt(s);
  if (n > UINT64_MAX) throw new EvalError(`strconv.ParseUint: parsing ${quoteCapped(s)}: value out of range`);
  return n;
}

/** One of major, minor, patch: digits without leading zeroes. */
function versionNumber(s: string, name: "major" | "minor" | "patch"): bigint {
  if (!NUMBERS.test(s)) throw new EvalError(`Invalid character(s) found in ${name} number ${quoteCapped(s)}`);
  if (hasLeadingZeroes(s)) throw new EvalError(`${name[0]!.toUpperCase()}${name.slice(1)} number must not contain leading zeroes ${quoteCapped(s)}`);
  return parseUint(s);
}

/** NUMBERS.test(s) (1), else ALPHANUMERIC.test(s) (2), else 0, in one pass: a pre-release may hold 125,000 identifiers, and two regular expression calls each took twice what their share of the cost pays for. */
function identifierKind(s: string): number {
  let digits = true;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x30 && c <= 0x39) continue;
    if (!((c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x2d)) return 0;
    digits = false;
  }
  return digits ? 1 : 2;
}

function preRelease(s: string): PreRelease {
  if (s === "") throw new EvalError("Prerelease is empty");
  const kind = identifierKind(s);
  if (kind === 1) {
    if (hasLeadingZeroes(s)) throw new EvalError(`Numeric PreRelease version must not contain leading zeroes ${quoteCapped(s)}`);
    return parseUint(s);
  }
  if (kind === 0) throw new EvalError(`Invalid character(s) found in prerelease ${quoteCapped(s)}`);
  return s;
}

/** blang/semver's Parse; `ctx`'s edge meter is charged one unit per pre-release and build identifier made (chargeCreated). */
function parseSemver(s: string, ctx: CallContext): Version {
  if (s === "") throw new EvalError("Version string empty");
  const first = s.indexOf(".");
  const second = first < 0 ? -1 : s.indexOf(".", first + 1);
  if (second < 0) throw new EvalError("No Major.Minor.Patch elements found");
  const major = versionNumber(s.slice(0, first), "major");
  const minor = versionNumber(s.slice(first + 1, second), "minor");
  let rest = s.slice(second + 1);
  let build: string[] = [];
  let pre: string[] = [];
  const plus = rest.indexOf("+");
  if (plus >= 0) {
    build = chargeCreated(ctx, rest.slice(plus + 1).split("."));
    rest = rest.slice(0, plus);
  }
  const dash = rest.indexOf("-");
  if (dash >= 0) {
    pre = chargeCreated(ctx, rest.slice(dash + 1).split("."));
    rest = rest.slice(0, dash);
  }
  const patch = versionNumber(rest, "patch");
  const preReleases = pre.map(preRelease);
  for (const meta of build) {
    if (meta === "") throw new EvalError("Build meta data is empty");
    if (!ALPHANUMERIC.test(meta)) throw new EvalError(`Invalid character(s) found in build meta data ${quoteCapped(meta)}`);
  }
  return { major, minor, patch, pre: preReleases, build };
}

/** The library's normalizeAndParse. */
function normalizeAndParse(input: string, ctx: CallContext): Version {
  const s = input.startsWith("v") ? input.slice(1) : input;
  const first = s.indexOf(".");
  const second = first < 0 ? -1 : s.indexOf(".", first + 1);
  const parts = first < 0 ? [s] : second < 0 ? [s.slice(0, first), s.slice(first + 1)] : [s.slice(0, first), s.slice(first + 1, second), s.slice(second + 1)];
  for (const [i, part] of parts.entries()) {
    if (part.length <= 1) continue;
    let trimmed = part.replace(/^0+/, "");
    if (trimmed === "" || !/^[0-9]/.test(trimmed)) trimmed = `0${trimmed}`;
    parts[i] = trimmed;
  }
  if (parts.length < 3) {
    if (/[+-]/.test(parts[parts.length - 1]!)) throw new EvalError("short version cannot contain PreRelease/Build meta data");
    while (parts.length < 3) parts.push("0");
  }
  return parseSemver(parts.join("."), ctx);
}

function comparePre(a: PreRelease, b: PreRelease): number {
  if (typeof a === "bigint" && typeof b === "bigint") return a === b ? 0 : a > b ? 1 : -1;
  if (typeof a === "bigint") return -1;
  if (typeof b === "bigint") return 1;
  return a === b ? 0 : a > b ? 1 : -1;
}

/** blang/semver's Compare: numbers, then a release above its prereleases, then prerelease identifiers in order. */
function compareVersions(a: Version, b: Version): number {
  for (const key of ["major", "minor", "patch"] as const) if (a[key] !== b[key]) return a[key] > b[key] ? 1 : -1;
  if (a.pre.length === 0 || b.pre.length === 0) return a.pre.length === b.pre.length ? 0 : a.pre.length === 0 ? 1 : -1;
  for (let i = 0; ; i++) {
    if (i === a.pre.length || i === b.pre.length) return i === a.pre.length && i === b.pre.length ? 0 : i === a.pre.length ? -1 : 1;
    const c = comparePre(a.pre[i]!, b.pre[i]!);
    if (c !== 0) return c;
  }
}

const S = SEMVER_TYPE.name;
const versionOf = (v: Value | undefined): Version => {
  if (!(v instanceof SemverValue)) throw noSuchOverload();
  return v.version;
};

/** The string argument and its normalize flag (false when absent), charged for reading the string. */
function parseArgs(args: readonly Value[], ctx: CallContext): Version {
  const [s, normalize] = args as [string, boolean | undefined];
  chargeTraversal(ctx, costSize(s));
  return normalize === true ? normalizeAndParse(s, ctx) : parseSemver(s, ctx);
}

export const semverLibrary: Library = {
  name: "kubernetes.Semver",
  types: [SEMVER_TYPE],
  functions: [
    {
      name: "semver",
      overloads: [
        { params: ["string"], result: S, impl: (args, ctx) => new SemverValue(parseArgs(args, ctx)) },
        { params: ["string", "bool"], result: S, impl: (args, ctx) => new SemverValue(parseArgs(args, ctx)) },
      ],
    },
    {
      name: "isSemver",
      overloads: ([["string"], ["string", "bool"]] as const).map(
        (params): OverloadDecl => ({
          params: [...params],
          result: "bool",
          impl: (args, ctx) => parses(() => parseArgs(args, ctx)),
        }),
      ),
    },
    { name: "major", overloads: [member([S], "int", ([v]) => intOf(BigInt.asIntN(64, versionOf(v).major)))] },
    { name: "minor", overloads: [member([S], "int", ([v]) => intOf(BigInt.asIntN(64, versionOf(v).minor)))] },
    { name: "patch", overloads: [member([S], "int", ([v]) => intOf(BigInt.asIntN(64, versionOf(v).patch)))] },
    { name: "isGreaterThan", overloads: [member([S, S], "bool", ([a, b]) => compareVersions(versionOf(a), versionOf(b)) === 1)] },
    { name: "isLessThan", overloads: [member([S, S], "bool", ([a, b]) => compareVersions(versionOf(a), versionOf(b)) === -1)] },
    { name: "compareTo", overloads: [member([S, S], "int", ([a, b]) => compareVersions(versionOf(a), versionOf(b)))] },
  ],
};
