import { describe, expect, it } from "vitest";
import { compile, createEnv } from "../../index.js";
import { cost, error, value } from "../../../../test/support/cel/index.js";
import { Optional } from "../../values/index.js";
import { formatLibrary } from "./index.js";

const libraries = [formatLibrary];
const v = (source: string, activation = {}) => value(source, activation, { libraries });
const errors = (source: string, activation = {}) => {
  const r = v(source, activation);
  if (!(r instanceof Optional)) throw new Error("not an optional");
  return r.value ?? null;
};

const LABEL_REGEX =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";

describe("Kubernetes format library", () => {
  it("validates names with apimachinery's messages", () => {
    expect(errors("format.dns1123Label().validate('my-label-name')")).toBeNull();
    expect(errors("format.dns1123Label().validate('Not_A_Label')")).toEqual([LABEL_REGEX]);
    expect(errors("format.dns1123Label().validate('a.b')")).toEqual(["must not contain dots"]);
    expect(errors(`format.dns1123Label().validate('${"a".repeat(64)}')`)).toEqual(["must be no more than 63 characters"]);
    expect(errors("format.dns1123Subdomain().validate('apiextensions.k8s.io')")).toBeNull();
    expect(errors("format.dns1123Subdomain().validate('-a.b')")).toEqual([
      "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
    ]);
    expect(errors("format.dns1035Label().validate('my-label-name')")).toBeNull();
    expect(errors("format.dns1035Label().validate('1abc')")).toEqual([
      "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
    ]);
    expect(errors("format.qualifiedName().validate('apiextensions.k8s.io/v1beta1')")).toBeNull();
    expect(errors("format.qualifiedName().validate('/x')")).toEqual(["prefix part must be non-empty"]);
    expect(errors("format.qualifiedName().validate('a/b/c')")).toEqual([
      "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    ]);
    expect(errors("format.qualifiedName().validate('Example.com/')")).toEqual([
      "prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
      "name part must be non-empty",
      "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
    ]);
    expect(errors("format.labelValue().validate('')")).toBeNull();
    expect(errors("format.labelValue().validate('my_value.1')")).toBeNull();
    expect(errors("format.labelValue().validate('-x')")).toEqual([
      "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
    ]);
  });

  it("masks a trailing dash for the prefix formats", () => {
    expect(errors("format.dns1123LabelPrefix().validate('my-label-prefix-')")).toBeNull();
    expect(errors("format.dns1123SubdomainPrefix().validate('mysubdomain.prefix.-')")).toBeNull();
    expect(errors("format.dns1035LabelPrefix().validate('my-label-prefix-')")).toBeNull();
    expect(errors("format.dns1123Label().validate('my-label-prefix-')")).toEqual([LABEL_REGEX]);
  });

  it("validates the CRD formats", () => {
    expect(errors("format.uri().validate('http://example.com')")).toBeNull();
    expect(errors("format.uri().validate('example.com')")).toEqual(['parse "example.com": invalid URI for request']);
    expect(errors("format.uuid().validate('123e4567-e89b-12d3-a456-426614174000')")).toBeNull();
    expect(errors("format.uuid().validate('123E4567E89B12D3A456426614174000')")).toBeNull();
    expect(errors("format.uuid().validate('123e4567')")).toEqual(["does not match the UUID format"]);
    expect(errors("format.byte().validate('aGVsbG8=')")).toBeNull();
    expect(errors("format.byte().validate('aGVsbG8')")).toEqual(["invalid base64"]);
    expect(errors("format.byte().validate('')")).toEqual(["invalid base64"]);
    expect(errors("format.date().validate('2021-01-01')")).toBeNull();
    expect(errors("format.date().validate('2021-02-29')")).toEqual(["invalid date"]);
    expect(errors("format.date().validate('2024-02-29')")).toBeNull();
    expect(errors("format.datetime().validate('2021-01-01T00:00:00Z')")).toBeNull();
    expect(errors("format.datetime().validate('2021-01-01t23:59:59.5+01:00')")).toBeNull();
    expect(errors("format.datetime().validate('2021-01-01T24:00:00Z')")).toEqual(["invalid datetime"]);
    expect(errors("format.datetime().validate('2021-01-01')")).toEqual(["invalid datetime"]);
  });

  it("looks formats up by name", () => {
    expect(v("format.named('dns1123Label').hasValue() && !format.named('nope').hasValue()")).toBe(true);
    expect(errors("format.named('dns1123Label').value().validate('a_b')")).toEqual([LABEL_REGEX]);
    expect(v("format.named('uuid').value() == format.uuid() && format.uuid() != format.uri()")).toBe(true);
    expect(v("type(format.uuid()) == kubernetes.NamedFormat")).toBe(true);
    expect(error("format.nope()", {}, { libraries })).toMatch(/undeclared reference to 'format'/);
  });

  it("charges a validation like a match of the format's regex size", () => {
    const env = createEnv({ variables: ["s"], libraries });
    const c = compile("format.dns1123Label().validate(s)", env);
    if (!c.ok) throw new Error(c.error);
    // (1 + 99) × 0.1 = 10, times 30 × 0.25 → 8: 80 against 1 × 8 for the empty string.
    expect(c.program.evaluate({ s: "a".repeat(99) }).cost - c.program.evaluate({ s: "" }).cost).toBe(72);
  });

  // cost_test.go:896 (TestNameFormatCost).
  it("costs what Kubernetes' cost tests say", () => {
    expect(cost('format.named("dns1123Label").value().validate("my-name")', {}, { libraries })).toBe(10);
    expect(cost('format.named("dns1123Subdomain").value().validate("my-name")', {}, { libraries })).toBe(17);
    expect(cost('format.named("dns1123Label").value() == format.named("dns1123Label").value()', {}, { libraries })).toBe(5);
  });
});
