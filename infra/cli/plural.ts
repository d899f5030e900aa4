/** A count and its noun, as messages print it: "1 cluster", "2 clusters" (`many` for "policies"). */
export const plural = (count: number, one: string, many = `${one}s`) => `${count} ${count === 1 ? one : many}`;
