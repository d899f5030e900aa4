// JSON text checked before anything walks it recursively: nesting depth is
// measured in one linear pass, so a hostile document is refused (400) instead
// of overflowing a stack somewhere later (500).

/** Why `text` nests deeper than `maxDepth` arrays and objects, or undefined. Strings are skipped, escapes included. */
export function nestingError(text: string, maxDepth: number): string | undefined {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const char = text.charCodeAt(i);
    if (inString) {
      if (char === 0x5c /* \ */) i++;
      else if (char === 0x22 /* " */) inString = false;
    } else if (char === 0x22) inString = true;
    else if (char === 0x7b /* { */ || char === 0x5b /* [ */) {
      if (++depth > maxDepth) return `nests deeper than ${maxDepth} levels of objects and arrays`;
    } else if (char === 0x7d /* } */ || char === 0x5d /* ] */) depth--;
  }
  return undefined;
}

/** Objects of at least this many keys keep their key list (ownKeys). */
const LARGE_OBJECT = 64;
/**
 * Key lists of large objects, by identity: Object.keys of a map of 100,000
 * labels costs as much as a walk of the map (it sorts them back into
 * insertion order), and the decode of each policy's schema, VAP matching and
 * every CEL expression that iterates or sizes the map would pay it again.
 * Weak, so a list lives no longer than its object.
 */
const largeObjectKeys = new WeakMap<object, readonly string[]>();

/**
 * Object.keys(object), shared by every reader of a large object. For objects
 * nothing writes to once parsed (a request's, a snapshot's): a key added
 * later would not be in the list.
 */
export function ownKeys(object: object): readonly string[] {
  const known = largeObjectKeys.get(object);
  if (known !== undefined) return known;
  const keys = Object.keys(object);
  if (keys.length >= LARGE_OBJECT) largeObjectKeys.set(object, keys);
  return keys;
}
