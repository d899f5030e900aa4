// The WebCrypto type names shared/ uses (CryptoKey, …) are globals in the
// Workers and DOM declarations but live under node:crypto's `webcrypto` in
// @types/node 24 (which declares only their values); the Node project names
// them here. The values are globals in Node 24.
type CryptoKey = import("node:crypto").webcrypto.CryptoKey;
type CryptoKeyPair = import("node:crypto").webcrypto.CryptoKeyPair;
type JsonWebKey = import("node:crypto").webcrypto.JsonWebKey;
