// Every property test of a run draws from one seed, handed over by
// vitest.config.ts (fastCheckSeed): fixed unless EDGEADMIT_FC_SEED says
// otherwise, so `npm test` draws the same cases every run and passes or
// fails alike on every machine. An fc.assert's own { seed } still wins.
import fc from "fast-check";
import { inject } from "vitest";

declare module "vitest" {
  interface ProvidedContext {
    /** The seed of every property of the run, or undefined for a new one per property (EDGEADMIT_FC_SEED=random). */
    fastCheckSeed: number | undefined;
  }
}

const seed = inject("fastCheckSeed");
fc.configureGlobal(seed === undefined ? {} : { seed });
