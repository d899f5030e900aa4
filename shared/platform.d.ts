// The globals the shared core and the policies may use: Web-standard APIs that
// both Node 24 and workerd provide, and nothing else. Only tsconfig.core.json
// includes this file, so code under shared/ and policies/ that reaches for a
// Node API (fs, Buffer, process) or a Workers API (Durable Objects, caches)
// fails `npm test`. The worker and Node projects get the full declarations
// of their own runtime instead.

interface CryptoKey {
  readonly type: "public" | "private" | "secret";
  readonly extractable: boolean;
  readonly usages: readonly string[];
}

interface CryptoKeyPair {
  privateKey: CryptoKey;
  publicKey: CryptoKey;
}

interface JsonWebKey {
  kty?: string;
  crv?: string;
  x?: string;
  d?: string;
}

type BufferSource = ArrayBuffer | ArrayBufferView;
type KeyAlgorithmIdentifier = string | { name: string };
type KeyFormat = "raw" | "pkcs8" | "spki" | "jwk";
type KeyUsage = "sign" | "verify" | "encrypt" | "decrypt" | "deriveKey" | "deriveBits" | "wrapKey" | "unwrapKey";

interface SubtleCrypto {
  digest(algorithm: KeyAlgorithmIdentifier, data: BufferSource): Promise<ArrayBuffer>;
  generateKey(algorithm: KeyAlgorithmIdentifier, extractable: boolean, usages: readonly KeyUsage[]): Promise<CryptoKeyPair | CryptoKey>;
  importKey(format: KeyFormat, keyData: BufferSource | JsonWebKey, algorithm: KeyAlgorithmIdentifier, extractable: boolean, usages: readonly KeyUsage[]): Promise<CryptoKey>;
  exportKey(format: KeyFormat, key: CryptoKey): Promise<ArrayBuffer | JsonWebKey>;
  sign(algorithm: KeyAlgorithmIdentifier, key: CryptoKey, data: BufferSource): Promise<ArrayBuffer>;
  verify(algorithm: KeyAlgorithmIdentifier, key: CryptoKey, signature: BufferSource, data: BufferSource): Promise<boolean>;
}

declare var crypto: {
  readonly subtle: SubtleCrypto;
  randomUUID(): string;
  getRandomValues<T extends ArrayBufferView>(array: T): T;
};

declare class TextEncoder {
  encode(input?: string): Uint8Array;
}

declare class TextDecoder {
  constructor(label?: string, options?: { fatal?: boolean; ignoreBOM?: boolean });
  decode(input?: BufferSource, options?: { stream?: boolean }): string;
}

declare function atob(data: string): string;
declare function btoa(data: string): string;
