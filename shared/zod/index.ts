// One zod/mini instance for the whole project, with English messages loaded
// (zod/mini ships without locales; "Invalid input" alone names nothing).
import * as z from "zod/mini";
import { en } from "zod/locales";

z.config(en());

export { z };

/** One line naming every problem: `request.uid: Invalid input: expected string, received undefined`. */
export function describeZodError(error: z.core.$ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((issue) => {
      const path = issue.path.map(String).join(".");
      return path ? `${path}: ${issue.message}` : issue.message;
    })
    .join("; ");
}
