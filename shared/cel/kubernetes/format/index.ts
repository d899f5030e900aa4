// Kubernetes' format library (k8s.io/apiserver/pkg/cel/library/format.go,
// base environment 1.31+): named string validations.
//   format.named(<string>) <optional<kubernetes.NamedFormat>>
//   format.dns1123Label() ... format.datetime() <kubernetes.NamedFormat>
//   <NamedFormat>.validate(<string>) <optional<list<string>>>   none when valid
// The Kubernetes name formats use apimachinery's validators and their exact
// messages (IsDNS1123Label, IsDNS1123Subdomain, IsDNS1035Label,
// IsQualifiedName, IsValidLabelValue, with NameIsDNS*'s prefix masking); the
// CRD formats use url.ParseRequestURI (uri) and kube-openapi's strfmt checks
// (uuid, byte, date, datetime). The name checks here are linear scans rather
// than the regexes they are written as, so no input makes them slow.
// Cost as Kubernetes' CostEstimator: validate is charged like a regex match
// of the format's MaxRegexSize, (1 + length) × 0.1 × MaxRegexSize × 0.25.

import { utf8Length, type CallContext, type Library } from "../../declarations/index.js";
import { CelType, codePointLength, LibraryValue, noSuchOverload, Optional, type Value } from "../../values/index.js";
import { requestURIError } from "../url/index.js";

const FORMAT_TYPE = new CelType("kubernetes.NamedFormat");

const maxLenError = (n: number): string => `must be no more than ${n} characters`;
const EMPTY = "must be non-empty";

/** apimachinery's validation.RegexError: each example is followed by ", " and they are joined by " or ", hence "'a',  or 'b'". */
function regexError(msg: string, fmt: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${fmt}')`;
  return `${msg} (e.g. ${examples.map((e) => `'${e}', `).join(" or ")}regex used for validation is '${fmt}')`;
}

const lowerAlnum = (c: string): boolean => (c >= "a" && c <= "z") || (c >= "0" && c <= "9");
const alnum = (c: string): boolean => lowerAlnum(c) || (c >= "A" && c <= "Z");

/** ^first([-a-z0-9]*[a-z0-9])?$ */
function isLabel(s: string, first: (c: string) => boolean): boolean {
  if (s === "" || !first(s[0] as string) || !lowerAlnum(s[s.length - 1] as string)) return false;
  for (const c of s) if (!lowerAlnum(c) && c !== "-") return false;
  return true;
}
const isDns1123Label = (s: string): boolean => isLabel(s, lowerAlnum);
const isDns1123Subdomain = (s: string): boolean => s.split(".").every(isDns1123Label);
const isDns1035Label = (s: string): boolean => isLabel(s, (c) => c >= "a" && c <= "z");
/** ^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$ */
function isQualifiedNamePart(s: string): boolean {
  if (s === "" || !alnum(s[0] as string) || !alnum(s[s.length - 1] as string)) return false;
  for (const c of s) if (!alnum(c) && c !== "-" && c !== "_" && c !== ".") return false;
  return true;
}

const DNS1123_LABEL_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
const DNS1123_LABEL_MSG = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
const DNS1123_SUBDOMAIN_FMT = `${DNS1123_LABEL_FMT}(\\.${DNS1123_LABEL_FMT})*`;
const DNS1123_SUBDOMAIN_MSG = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const DNS1035_LABEL_FMT = "[a-z]([-a-z0-9]*[a-z0-9])?";
const DNS1035_LABEL_MSG = "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character";
const QUALIFIED_NAME_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
const QUALIFIED_NAME_MSG = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const LABEL_VALUE_FMT = `(${QUALIFIED_NAME_FMT})?`;
const LABEL_VALUE_MSG = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";

function validateDns1123Label(s: string): string[] {
  const errs: string[] = [];
  if (utf8Length(s) > 63) errs.push(maxLenError(63));
  if (!isDns1123Label(s)) errs.push(isDns1123Subdomain(s) ? "must not contain dots" : regexError(DNS1123_LABEL_MSG, DNS1123_LABEL_FMT, "my-name", "123-abc"));
  return errs;
}

function validateDns1123Subdomain(s: string): string[] {
  const errs: string[] = [];
  if (utf8Length(s) > 253) errs.push(maxLenError(253));
  if (!isDns1123Subdomain(s)) errs.push(regexError(DNS1123_SUBDOMAIN_MSG, DNS1123_SUBDOMAIN_FMT, "example.com"));
  return errs;
}

function validateDns1035Label(s: string): string[] {
  const errs: string[] = [];
  if (utf8Length(s) > 63) errs.push(maxLenError(63));
  if (!isDns1035Label(s)) errs.push(regexError(DNS1035_LABEL_MSG, DNS1035_LABEL_FMT, "my-name", "abc-123"));
  return errs;
}

function validateQualifiedName(s: string): string[] {
  const errs: string[] = [];
  const parts = s.split("/");
  let name: string;
  if (parts.length === 1) name = parts[0] as string;
  else if (parts.length === 2) {
    const prefix = parts[0] as string;
    name = parts[1] as string;
    if (prefix === "") errs.push(`prefix part ${EMPTY}`);
    else errs.push(...validateDns1123Subdomain(prefix).map((m) => `prefix part ${m}`));
  } else {
    return [
      `a qualified name ${regexError(QUALIFIED_NAME_MSG, QUALIFIED_NAME_FMT, "MyName", "my.name", "123-abc")} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ];
  }
  if (name === "") errs.push(`name part ${EMPTY}`);
  else if (utf8Length(name) > 63) errs.push(`name part ${maxLenError(63)}`);
  if (!isQualifiedNamePart(name)) errs.push(`name part ${regexError(QUALIFIED_NAME_MSG, QUALIFIED_NAME_FMT, "MyName", "my.name", "123-abc")}`);
  return errs;
}

function validateLabelValue(s: string): string[] {
  const errs: string[] = [];
  if (utf8Length(s) > 63) errs.push(maxLenError(63));
  if (s !== "" && !isQualifiedNamePart(s)) errs.push(regexError(LABEL_VALUE_MSG, LABEL_VALUE_FMT, "MyValue", "my_value", "12345"));
  return errs;
}

/** apimachinery's maskTrailingDash, for the *Prefix formats (generateName prefixes). */
const maskTrailingDash = (s: string): string => (s.length > 1 && s.endsWith("-") ? `${s.slice(0, -2)}a` : s);

const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const UUID_PATTERN = "(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$";
const BASE64_PATTERN = "^(?:[A-Za-z0-9+\\/]{4})*(?:[A-Za-z0-9+\\/]{2}==|[A-Za-z0-9+\\/]{3}=|[A-Za-z0-9+\\/]{4})$";
const DATE_TIME_PATTERN = "^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$";
/**
 * govalidator.URL's length, which Kubernetes uses as the uri format's regex
 * size for cost. Not read from the source here: an estimate (see the report).
 */
const URI_REGEX_SIZE = 1000;

/** govalidator.IsBase64: whole groups of four, the last possibly padded. */
function isBase64(s: string): boolean {
  if (s.length === 0 || s.length % 4 !== 0) return false;
  const body = /^[A-Za-z0-9+/]*$/;
  const last = s.slice(-4);
  if (!body.test(s.slice(0, -4))) return false;
  return /^[A-Za-z0-9+/]{4}$|^[A-Za-z0-9+/]{3}=$|^[A-Za-z0-9+/]{2}==$/.test(last);
}

/** time.Parse("2006-01-02", s): four-digit year, month 01-12, a day that exists in that month. */
function isDate(s: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  if (m === null) return false;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (month < 1 || month > 12 || day < 1) return false;
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1] as number;
  return day <= days;
}

/** strfmt.IsDateTime: a date, "t" (any case), and a time read by DateTimePattern; what follows a second "t" is ignored, as there. */
function isDateTime(s: string): boolean {
  if (s.length < 4) return false;
  const parts = s.toLowerCase().split("t");
  if (parts.length < 2 || !isDate(parts[0] as string)) return false;
  const m = /^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$/.exec(parts[1] as string);
  return m !== null && (m[1] as string) <= "23" && (m[2] as string) <= "59" && (m[3] as string) <= "59";
}

/** A kubernetes.NamedFormat value: the validation and the regex size its cost is estimated with. */
class FormatValue extends LibraryValue {
  readonly celType = FORMAT_TYPE;
  constructor(
    readonly name: string,
    readonly validate: (s: string) => string[],
    readonly maxRegexSize: number,
  ) {
    super();
  }
  equals(other: LibraryValue): boolean {
    return other instanceof FormatValue && other.name === this.name;
  }
}

const one = (message: string, valid: (s: string) => boolean) => (s: string): string[] => (valid(s) ? [] : [message]);

/** Kubernetes' ConstantFormats, by the names format.named and format.<name>() use. */
const FORMATS: ReadonlyMap<string, FormatValue> = new Map(
  [
    new FormatValue("dns1123Label", validateDns1123Label, 30),
    new FormatValue("dns1123Subdomain", validateDns1123Subdomain, 60),
    new FormatValue("dns1035Label", validateDns1035Label, 30),
    new FormatValue("qualifiedName", validateQualifiedName, 60),
    new FormatValue("dns1123LabelPrefix", (s) => validateDns1123Label(maskTrailingDash(s)), 30),
    new FormatValue("dns1123SubdomainPrefix", (s) => validateDns1123Subdomain(maskTrailingDash(s)), 60),
    new FormatValue("dns1035LabelPrefix", (s) => validateDns1035Label(maskTrailingDash(s)), 30),
    new FormatValue("labelValue", validateLabelValue, 40),
    new FormatValue("uri", (s) => {
      const e = requestURIError(s);
      return e === undefined ? [] : [e];
    }, URI_REGEX_SIZE),
    new FormatValue("uuid", one("does not match the UUID format", (s) => UUID.test(s)), UUID_PATTERN.length),
    new FormatValue("byte", one("invalid base64", isBase64), BASE64_PATTERN.length),
    new FormatValue("date", one("invalid date", isDate), DATE_TIME_PATTERN.length),
    new FormatValue("datetime", one("invalid datetime", isDateTime), DATE_TIME_PATTERN.length),
  ].map((f) => [f.name, f]),
);

function validate(f: FormatValue, s: string, ctx: CallContext): Optional {
  const strCost = Math.ceil((1 + codePointLength(s)) * 0.1);
  const regexCost = Math.ceil(f.maxRegexSize * 0.25);
  ctx.charge(Math.max(0, strCost * regexCost - 1));
  const errs = f.validate(s);
  return errs.length === 0 ? Optional.none : new Optional(errs);
}

const F = FORMAT_TYPE.name;

export const formatLibrary: Library = {
  name: "format",
  types: [FORMAT_TYPE],
  functions: [
    {
      name: "validate",
      overloads: [
        {
          receiver: true,
          params: [F, "string"],
          result: "optional_type",
          impl: ([f, s], ctx) => {
            if (!(f instanceof FormatValue) || typeof s !== "string") throw noSuchOverload();
            return validate(f, s, ctx);
          },
        },
      ],
    },
    {
      name: "format.named",
      overloads: [
        {
          params: ["string"],
          result: "optional_type",
          impl: ([name]) => {
            const f = FORMATS.get(name as string);
            return f === undefined ? Optional.none : new Optional(f);
          },
        },
      ],
    },
    ...[...FORMATS.values()].map((f) => ({ name: `format.${f.name}`, overloads: [{ params: [], result: F, impl: (): Value => f }] })),
  ],
};

