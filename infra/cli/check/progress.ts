// `edgeadmit check`'s progress line: large trees take a while.
import type { CliIo } from "../../base/io.js";

export const count = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString("en")} ${n === 1 ? one : many}`;

/** Progress on stderr, only when it is a terminal and the run has taken over 2 s: a line rewritten in place, cleared at the end. */
export function progressOf(io: CliIo) {
  const start = Date.now();
  let last = 0;
  let shown = false;
  return {
    tick(text: () => string) {
      if (!io.stderrIsTerminal) return;
      const now = Date.now();
      if (now - start < 2000 || now - last < 200) return;
      last = now;
      shown = true;
      io.err(`\r\x1b[Kedgeadmit check: ${text()}`);
    },
    done() {
      if (shown) io.err("\r\x1b[K");
    },
  };
}

export type Progress = ReturnType<typeof progressOf>;
