// `-o text|json|yaml`: what a verb prints its answer as, as kubectl's -o
// does. json and yaml carry the same data (yaml is json's, written as one
// YAML document); text is for people and may leave out what json holds.
import { stringify } from "yaml";
import type { CliIo } from "../base/io.js";
import { choice, optionalString, type ParsedArgs } from "./args.js";

export const OUTPUT_FLAG = { output: { type: "string", short: "o" } } as const;
export const OUTPUTS = ["text", "json", "yaml"] as const;
export type Output = (typeof OUTPUTS)[number];

/** -o, text by default; anything else is a usage error naming the three. */
export const outputOf = (args: ParsedArgs): Output => choice("output", optionalString(args, "output"), OUTPUTS, "text");

/**
 * `value` as one YAML document, as kubectl -o yaml writes one: no anchors for
 * repeated objects, a list's items at its key's indentation, no folded lines
 * (a key or message stays on one line, for grep).
 */
export const yamlOf = (value: unknown): string => stringify(value, { aliasDuplicateObjects: false, indentSeq: false, lineWidth: 0 });

/** `value` as -o json (indented; `oneLine` for a job's log, one object per line) or -o yaml. */
export function printData(io: CliIo, output: Exclude<Output, "text">, value: unknown, { oneLine = false }: { oneLine?: boolean } = {}): void {
  io.out(output === "yaml" ? yamlOf(value) : `${oneLine ? JSON.stringify(value) : JSON.stringify(value, null, 2)}\n`);
}
