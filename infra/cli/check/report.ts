// `edgeadmit check`'s report written out: -o text, json, yaml or sarif.
import type { CliIo } from "../../base/io.js";
import type { CheckReport } from "../output/index.js";
import { jsonChunks, renderJson } from "../output/json.js";
import { renderSarif } from "../output/sarif.js";
import { renderText } from "../output/text.js";
import { renderYaml, yamlChunks } from "../output/yaml.js";

const RENDERERS = { text: renderText, json: renderJson, yaml: renderYaml, sarif: renderSarif } as const;
export const OUTPUTS = Object.keys(RENDERERS) as Array<keyof typeof RENDERERS>;
export type Output = (typeof OUTPUTS)[number];

/** The renderings written in pieces as they are made. */
const CHUNKS = { json: jsonChunks, yaml: yamlChunks } as const;

export async function writeReport(report: CheckReport, output: Output, io: CliIo): Promise<void> {
  // JSON and YAML go out in pieces, each once the one before has left: the report of a large tree is never one string, nor queued whole on a slow pipe.
  if (output === "json" || output === "yaml") {
    let piece = "";
    for (const chunk of CHUNKS[output](report)) {
      piece += chunk;
      if (piece.length < 256 * 1024) continue;
      io.out(piece);
      piece = "";
      await io.drained?.();
    }
    io.out(piece);
  } else io.out(output === "text" ? renderText(report, { colour: io.colour === true }) : RENDERERS[output](report));
}
