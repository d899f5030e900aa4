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
