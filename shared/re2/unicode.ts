// Unicode knowledge the engine needs: simple case folding for (?i) and the
// \p{…} property names Go accepts. Membership in a property is asked of a
// precompiled JS RegExp on one code point at a time: that regex only ever sees
// a single character, so it cannot backtrack on caller input.

/** A code point's case-fold orbit: every code point (?i) treats as equal to it, itself included. */
export function foldOrbit(c: number): readonly number[] {
  if (c < asciiOrbits.length) return asciiOrbits[c]!;
  return computeOrbit(c);
}

/**
 * Pairs (from, to) where `to` folds to `from` but `from`'s own lower/upper
 * mapping does not lead back to `to` (Kelvin sign K, long s ſ, Greek symbol
 * variants, titlecase digraphs…). Derived once from the JS case mappings, so
 * that orbits built from toLowerCase/toUpperCase are closed as Go's are.
 */
const oneWayFolds = [
  0x39c, 0xb5, 0x53, 0x17f, 0x1c6, 0x1c5, 0x1c4, 0x1c5, 0x1c9, 0x1c8, 0x1c7, 0x1c8, 0x1cc, 0x1cb, 0x1ca, 0x1cb, 0x1f3,
  0x1f2, 0x1f1, 0x1f2, 0x399, 0x345, 0x3a3, 0x3c2, 0x392, 0x3d0, 0x398, 0x3d1, 0x3a6, 0x3d5, 0x3a0, 0x3d6, 0x39a, 0x3f0,
  0x3a1, 0x3f1, 0x3b8, 0x3f4, 0x395, 0x3f5, 0x412, 0x1c80, 0x414, 0x1c81, 0x41e, 0x1c82, 0x421, 0x1c83, 0x422, 0x1c84,
  0x422, 0x1c85, 0x42a, 0x1c86, 0x462, 0x1c87, 0xa64a, 0x1c88, 0x1e60, 0x1e9b, 0xdf, 0x1e9e, 0x1f80, 0x1f88, 0x1f81,
  0x1f89, 0x1f82, 0x1f8a, 0x1f83, 0x1f8b, 0x1f84, 0x1f8c, 0x1f85, 0x1f8d, 0x1f86, 0x1f8e, 0x1f87, 0x1f8f, 0x1f90, 0x1f98,
  0x1f91, 0x1f99, 0x1f92, 0x1f9a, 0x1f93, 0x1f9b, 0x1f94, 0x1f9c, 0x1f95, 0x1f9d, 0x1f96, 0x1f9e, 0x1f97, 0x1f9f, 0x1fa0,
  0x1fa8, 0x1fa1, 0x1fa9, 0x1fa2, 0x1faa, 0x1fa3, 0x1fab, 0x1fa4, 0x1fac, 0x1fa5, 0x1fad, 0x1fa6, 0x1fae, 0x1fa7, 0x1faf,
  0x1fb3, 0x1fbc, 0x399, 0x1fbe, 0x1fc3, 0x1fcc, 0x1ff3, 0x1ffc, 0x3c9, 0x2126, 0x6b, 0x212a, 0xe5, 0x212b,
];

const extraFolds = new Map<number, number[]>();
for (let i = 0; i < oneWayFolds.length; i += 2) {
  const from = oneWayFolds[i]!;
  const list = extraFolds.get(from) ?? [];
  list.push(oneWayFolds[i + 1]!);
  extraFolds.set(from, list);
}

/** Dotted and dotless i fold only to themselves in Go (no Turkish folding). */
function foldsToItselfOnly(c: number): boolean {
  return c === 0x130 || c === 0x131;
}

function singleCodePoint(s: string): number | undefined {
  const first = s.codePointAt(0);
  if (first === undefined) return undefined;
  return s.length === (first > 0xffff ? 2 : 1) ? first : undefined;
}

function computeOrbit(c: number): number[] {
  if (foldsToItselfOnly(c) || (c >= 0xd800 && c <= 0xdfff)) return [c];
  const orbit = [c];
  for (let i = 0; i < orbit.length; i++) {
    const x = orbit[i]!;
    const s = String.fromCodePoint(x);
    const neighbours = [singleCodePoint(s.toLowerCase()), singleCodePoint(s.toUpperCase()), ...(extraFolds.get(x) ?? [])];
    for (const n of neighbours) {
      if (n !== undefined && !foldsToItselfOnly(n) && !orbit.includes(n)) orbit.push(n);
    }
  }
  return orbit;
}

const asciiOrbits: readonly (readonly number[])[] = Array.from({ length: 128 }, (_, c) => computeOrbit(c));

/** A membership test for one Unicode property, tested one code point at a time. */
export interface UnicodeProperty {
  readonly matcher: RegExp;
  /** True for properties Go defines by complement (Assigned = not Cn). */
  readonly negated: boolean;
}

const generalCategories = [
  "C", "Cc", "Cf", "Cn", "Co", "Cs", "L", "Ll", "Lm", "Lo", "Lt", "Lu", "M", "Mc", "Me", "Mn", "N", "Nd", "Nl", "No",
  "P", "Pc", "Pd", "Pe", "Pf", "Pi", "Po", "Ps", "S", "Sc", "Sk", "Sm", "So", "Z", "Zl", "Zp", "Zs",
];

/** Go's unicode.CategoryAliases (Go 1.25), long names for the categories. */
const categoryAliases: Record<string, string> = {
  Cased_Letter: "LC", Close_Punctuation: "Pe", Combining_Mark: "M", Connector_Punctuation: "Pc", Control: "Cc",
  Currency_Symbol: "Sc", Dash_Punctuation: "Pd", Decimal_Number: "Nd", Enclosing_Mark: "Me", Final_Punctuation: "Pf",
  Format: "Cf", Initial_Punctuation: "Pi", Letter: "L", Letter_Number: "Nl", Line_Separator: "Zl",
  Lowercase_Letter: "Ll", Mark: "M", Math_Symbol: "Sm", Modifier_Letter: "Lm", Modifier_Symbol: "Sk",
  Nonspacing_Mark: "Mn", Number: "N", Open_Punctuation: "Ps", Other: "C", Other_Letter: "Lo", Other_Number: "No",
  Other_Punctuation: "Po", Other_Symbol: "So", Paragraph_Separator: "Zp", Private_Use: "Co", Punctuation: "P",
  Separator: "Z", Space_Separator: "Zs", Spacing_Mark: "Mc", Surrogate: "Cs", Symbol: "S", Titlecase_Letter: "Lt",
  Unassigned: "Cn", Uppercase_Letter: "Lu", cntrl: "Cc", digit: "Nd", punct: "P",
};

/** Go's lookup key: first letter upper, the rest lower, without spaces, underscores and hyphens. */
function canonicalName(name: string): string {
  const bare = name.replace(/[ _-]/g, "");
  return bare.slice(0, 1).toUpperCase() + bare.slice(1).toLowerCase();
}

/** JS class bodies by canonical name; Go's C is Cc|Cf|Co|Cs (unassigned code points are not "Other"). */
const namedClassBodies = new Map<string, string>([
  ["Any", "\\p{Any}"],
  ["Ascii", "\\p{ASCII}"],
  ["Lc", "\\p{Lu}\\p{Ll}\\p{Lt}"],
  ["C", "\\p{Cc}\\p{Cf}\\p{Co}\\p{Cs}"],
]);
for (const category of generalCategories) {
  if (category !== "C") namedClassBodies.set(canonicalName(category), `\\p{gc=${category}}`);
}
for (const [alias, category] of Object.entries(categoryAliases)) {
  const body = namedClassBodies.get(canonicalName(category));
  if (body !== undefined) namedClassBodies.set(canonicalName(alias), body);
}

/** The property Go's \p{name} names (categories, aliases, Any, ASCII, Assigned, scripts), or undefined. */
export function unicodeProperty(name: string): UnicodeProperty | undefined {
  // Only letters, digits, spaces, underscores and hyphens can name a property;
  // checking this first keeps caller text out of the RegExp sources below.
  if (name.length === 0 || name.length > 64 || !/^[A-Za-z0-9 _-]+$/.test(name)) return undefined;
  const canonical = canonicalName(name);
  if (canonical === "Assigned") return { matcher: singleCodePointRegExp("\\p{gc=Cn}"), negated: true };
  const body = namedClassBodies.get(canonical);
  if (body !== undefined) return { matcher: singleCodePointRegExp(body), negated: false };
  // Scripts: Go's names are Unicode's (Greek, Old_Italic); try them as given, then canonicalised.
  for (const candidate of [name, canonical]) {
    if (!/^[A-Za-z_]+$/.test(candidate)) continue;
    try {
      return { matcher: singleCodePointRegExp(`\\p{Script=${candidate}}`), negated: false };
    } catch {
      // Not a script name JS knows; try the next spelling.
    }
  }
  return undefined;
}

/** Keyed by class body, not by the caller's spelling, so the cache stays as small as the set of properties. */
const regExpCache = new Map<string, RegExp>();

function singleCodePointRegExp(classBody: string): RegExp {
  let matcher = regExpCache.get(classBody);
  if (matcher === undefined) {
    matcher = new RegExp(`^[${classBody}]$`, "u");
    regExpCache.set(classBody, matcher);
  }
  return matcher;
}

/** Whether code point c has the property (before any negation the caller applies). */
export function hasProperty(property: UnicodeProperty, c: number): boolean {
  return property.matcher.test(String.fromCodePoint(c));
}
