import { describe, expect, it } from "vitest";
import { compile, createEnv } from "../../index.js";
import { cost, error, value } from "../../../../test/support/cel/index.js";
import { CelMap } from "../../values/index.js";
import { urlLibrary } from "./index.js";

const libraries = [urlLibrary];
const v = (source: string, activation = {}) => value(source, activation, { libraries });
const err = (source: string, activation = {}) => error(source, activation, { libraries });
const query = (source: string) => {
  const m = v(source);
  if (!(m instanceof CelMap)) throw new Error("not a map");
  return Object.fromEntries(m.keys().map((k) => [k, m.get(k)]));
};

describe("Kubernetes URL library", () => {
  // The examples of k8s.io/apiserver/pkg/cel/library/urls.go.
  it("accepts absolute URIs and absolute paths only", () => {
    expect(v("isURL('https://user:pass@example.com:80/path?query=val#fragment')")).toBe(true);
    expect(v("isURL('/absolute-path')")).toBe(true);
    expect(v("isURL('https://a:b:c/')")).toBe(false);
    expect(v("isURL('../relative-path')")).toBe(false);
    expect(v("isURL('') || isURL('example.com') || isURL(':8080/x') || isURL('http://[::1/')")).toBe(false);
    expect(v("isURL('*') && isURL('mailto:someone@example.com') && isURL('http://x/a%20b')")).toBe(true);
    expect(v("isURL('http://x/a%2')")).toBe(false);
  });

  it("reports Go's parse errors", () => {
    expect(err("url('https://a:b:c/')")).toBe('URL parse error during conversion from string: parse "https://a:b:c/": invalid port ":c" after host');
    expect(err("url('../relative-path')")).toBe('URL parse error during conversion from string: parse "../relative-path": invalid URI for request');
    expect(err("url('')")).toBe('URL parse error during conversion from string: parse "": empty url');
    expect(err("url(':x')")).toBe('URL parse error during conversion from string: parse ":x": missing protocol scheme');
    expect(err("url('http://a b/')")).toBe('URL parse error during conversion from string: parse "http://a b/": invalid character " " in host name');
    expect(err("url('http://x/%zz')")).toBe('URL parse error during conversion from string: parse "http://x/%zz": invalid URL escape "%zz"');
    expect(err("url('http://x/\\n')")).toBe('URL parse error during conversion from string: parse "http://x/\\n": net/url: invalid control character in URL');
    expect(err("url('http://[::1/')")).toBe("URL parse error during conversion from string: parse \"http://[::1/\": missing ']' in host");
    expect(err("url('http://a^b@x/')")).toBe('URL parse error during conversion from string: parse "http://a^b@x/": net/url: invalid userinfo');
    // Only url.Parse checks the fragment; ParseRequestURI took it as part of the query.
    expect(err("url('http://x/?a#%zz')")).toBe('URL parse error during conversion from string: parse "http://x/?a#%zz": invalid URL escape "%zz"');
  });

  it("caps the input a message quotes", () => {
    const long = `http://x:${"a".repeat(200)}/`;
    expect(err("url(s)", { s: long })).toBe(`URL parse error during conversion from string: parse "${long.slice(0, 64)}"...: invalid port ":${"a".repeat(63)}"... after host`);
  });

  it("reads the parts as Go's url.URL does", () => {
    expect(v("url('/path').getScheme()")).toBe("");
    expect(v("url('HTTPS://example.com/').getScheme()")).toBe("https");
    expect(v("url('https://example.com:80/').getHost()")).toBe("example.com:80");
    expect(v("url('https://example.com/').getHost()")).toBe("example.com");
    expect(v("url('https://[::1]:80/').getHost()")).toBe("[::1]:80");
    expect(v("url('https://[::1]/').getHost()")).toBe("[::1]");
    expect(v("url('/path').getHost()")).toBe("");
    expect(v("url('https://example.com:80/').getHostname()")).toBe("example.com");
    expect(v("url('https://127.0.0.1:80/').getHostname()")).toBe("127.0.0.1");
    expect(v("url('https://[::1]:80/').getHostname()")).toBe("::1");
    expect(v("url('/path').getHostname()")).toBe("");
    expect(v("url('https://example.com:80/').getPort()")).toBe("80");
    expect(v("url('https://example.com/').getPort()")).toBe("");
    expect(v("url('/path').getPort()")).toBe("");
    expect(v("url('https://example.com/path').getEscapedPath()")).toBe("/path");
    expect(v("url('https://example.com/path with spaces/').getEscapedPath()")).toBe("/path%20with%20spaces/");
    expect(v("url('https://example.com').getEscapedPath()")).toBe("");
    expect(v("url('https://example.com/a%2Fb').getEscapedPath()")).toBe("/a%2Fb");
    expect(v("url('https://example.com/caf%C3%A9').getEscapedPath()")).toBe("/caf%C3%A9");
    expect(v("url('https://example.com/café').getEscapedPath()")).toBe("/caf%C3%A9");
    expect(v("url('https://user@example.com:8443/x#frag').getHost()")).toBe("example.com:8443");
    // ParseRequestURI accepts it as a path; url.Parse then reads an authority, as Kubernetes does.
    expect(v("url('//example.com/x').getHost()")).toBe("example.com");
    expect(v("url('mailto:a@example.com').getEscapedPath()")).toBe("");
  });

  it("reads the query in matrix form, unescaped", () => {
    expect(query("url('https://example.com/path?k1=a&k2=b&k2=c').getQuery()")).toEqual({ k1: ["a"], k2: ["b", "c"] });
    expect(query("url('https://example.com/path?key with spaces=value with spaces').getQuery()")).toEqual({ "key with spaces": ["value with spaces"] });
    expect(query("url('https://example.com/path?').getQuery()")).toEqual({});
    expect(query("url('https://example.com/path').getQuery()")).toEqual({});
    expect(query("url('https://x/?a=1+2&b=%41&bad=%zz&c;d=1&e&#f=1').getQuery()")).toEqual({ a: ["1 2"], b: ["A"], e: [""] });
    expect(v("url('https://x/?a=1&a=2').getQuery()['a'][1]")).toBe("2");
  });

  it("names its type, compares and checks arguments", () => {
    expect(v("type(url('/x')) == kubernetes.URL")).toBe(true);
    expect(v("url('/x') == url('/x') && url('/x') != url('/y')")).toBe(true);
    expect(err("url(1)")).toMatch(/^ERROR: <input>:1:4: found no matching overload for 'url' applied to '\(int\)'/);
    expect(err("x.getHost()", { x: "http://x" })).toBe("no such overload: getHost(string)");
  });

  it("charges parsing by length", () => {
    const env = createEnv({ variables: ["s"], libraries });
    const c = compile("url(s).getQuery()", env);
    if (!c.ok) throw new Error(c.error);
    const base = c.program.evaluate({ s: "/" }).cost;
    expect(c.program.evaluate({ s: `/?${"a=1&".repeat(250)}` }).cost - base).toBe(100);
  });

  // cost_test.go:261 (TestURLsCost).
  it("costs what Kubernetes' cost tests say", () => {
    expect(cost("url('https:://kubernetes.io/').getScheme()", {}, { libraries })).toBe(4);
  });

  // condition_test.go:1059 ("Extended library cost: url"): exactly a budget of 4. library/cost.go:110 url is
  // ceil(23 × 0.1) = 3, :243 getHostname 1, and the == of its '' with 'kubernetes.io' is cel-go's
  // ceil(min(0, 13) × 0.1) = 0 (interpreter/runtimecost.go:132; cost.go's _==_ leaves strings to it).
  it("charges url's getHostname compared with a string as the apiserver does", () => {
    expect(cost("url('https:://kubernetes.io/').getHostname() == 'kubernetes.io'", {}, { libraries })).toBe(4);
    // A real hostname: 3 + 1 + ceil(13 × 0.1) = 6.
    expect(cost("url('https://kubernetes.io/').getHostname() == 'kubernetes.io'", {}, { libraries })).toBe(6);
  });
});
