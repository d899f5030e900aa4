// The resources `edgeadmit check` has read and not yet judged.
import { deflateRawSync, inflateRawSync } from "node:zlib";
import type { KubeObject } from "../../../shared/snapshot/builder/index.js";
import type { Source } from "../../objects/yaml.js";

/**
 * Objects waiting to be judged, in order, as JSON text deflated in batches:
 * a tenth or so of the parsed objects' memory, and parsing JSON back is far
 * cheaper than parsing the YAML again. Each batch is dropped once drained.
 */
export class PendingObjects {
  static readonly BATCH_BYTES = 256 * 1024;
  readonly #batches: Array<Buffer | undefined> = [];
  readonly #places: Array<{ source: Source; scope: string; batch: number }> = [];
  #texts: string[] = [];
  #bytes = 0;

  get count(): number {
    return this.#places.length;
  }

  /** Keeps the object's JSON text, and returns it. */
  add(object: KubeObject, source: Source, scope: string): string {
    // JSON text has no raw newline: one per line.
    const text = JSON.stringify(object);
    this.#texts.push(text);
    this.#bytes += text.length;
    this.#places.push({ source, scope, batch: this.#batches.length });
    if (this.#bytes >= PendingObjects.BATCH_BYTES) this.#seal();
    return text;
  }

  #seal(): void {
    if (this.#texts.length === 0) return;
    this.#batches.push(deflateRawSync(this.#texts.join("\n"), { level: 1 }));
    this.#texts = [];
    this.#bytes = 0;
  }

  /** Every object in order; `keep` reads them without dropping any (a second pass follows). */
  *drain({ keep = false } = {}): Generator<{ object: KubeObject; source: Source; scope: string }> {
    this.#seal();
    let texts: string[] = [];
    let at = 0;
    let batch = -1;
    for (const place of this.#places) {
      if (place.batch !== batch) {
        batch = place.batch;
        texts = inflateRawSync(this.#batches[batch]!).toString("utf8").split("\n");
        if (!keep) this.#batches[batch] = undefined;
        at = 0;
      }
      yield { object: JSON.parse(texts[at++]!) as KubeObject, source: place.source, scope: place.scope };
    }
  }
}
