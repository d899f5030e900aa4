// `edgeadmit check`'s report written out: -o text, json or sarif.
import type { CliIo } from "../../base/io.js";
import type { CheckReport } from "../output/index.js";
import { jsonChunks, renderJson } from "../output/json.js";
import { renderSarif } from "../output/sarif.js";
import { renderText } from "../output/text.js";

const RENDERERS = { text: renderText, json: renderJson, sarif: renderSarif } as const;
export const OUTPUTS = Object.keys(RENDERERS) as Array<keyof typeof RENDERERS>;
export type Output = (typeof OUTPUTS)[number];

export async function writeReport(report: CheckReport, output: Output, io: CliIo): Promise<void> {
  // JSON goes out in pieces, each once the one before has left: the report of a large tree is never one string, nor queued whole on a slow pipe.
  if (output === "json") {
    let piece = "";
    for (const chunk of jsonChunks(report)) {
      piece += chunk;
      if (piece.length < 256 * 1024) continue;
      io.out(piece);
      piece = "";
      await io.drained?.();
    }
    io.out(piece);
  } else io.out(output === "text" ? renderText(report, { colour: io.colour === true }) : RENDERERS[output](report));
}
