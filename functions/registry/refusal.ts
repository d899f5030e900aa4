// A refusal inside one of the registry's transactions: thrown to roll it
// back, caught where the answer is made, with its status and its words.
export class Refusal extends Error {
  constructor(
    readonly status: 401 | 404 | 409,
    message: string,
  ) {
    super(message);
  }
}
