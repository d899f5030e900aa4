import type { CliIo } from "../base/io.js";

/** One `edgeadmit` verb: its help and what it does; `run` returns the exit code. */
export interface Verb {
  name: string;
  summary: string;
  /** Synopsis, flags and examples, printed by `edgeadmit <verb> --help`. */
  usage: string;
  run(argv: string[], io: CliIo): Promise<number>;
}
