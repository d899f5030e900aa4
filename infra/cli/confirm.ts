// A step that changes what many clusters enforce, or undoes changes, goes
// ahead only when asked for: --yes, or a yes on a terminal (as kubectl
// delete's confirmations and terraform apply do). Without a terminal and
// without --yes it is a usage error: nothing is sent.
import { CliError, EXIT_USAGE } from "../base/errors.js";
import type { CliIo } from "../base/io.js";
import type { ParsedArgs } from "./args.js";

export const YES_FLAG = { yes: { type: "boolean", short: "y" } } as const;

/** Whether to go ahead: --yes, or the operator's yes on a terminal (false: declined, nothing sent). */
export async function confirmed(verb: string, args: ParsedArgs, io: CliIo, question: string): Promise<boolean> {
  if (args.values.yes === true) return true;
  if (!io.confirm) throw new CliError(`${question}: pass --yes to go ahead (no terminal to ask on); nothing was sent (see edgeadmit ${verb} --help)`, EXIT_USAGE);
  return io.confirm(question);
}
