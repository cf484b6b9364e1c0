// Terminal public keys are never suffixes of one another (docs/decisions.md). encrypted_data is the
// ciphertext followed by the terminal's public_key, unchanged (the gateway's specification), so the
// terminal is found by the key the text ends with: were one key the end of another ("1001" and
// "pk_test_1001", or "pk_test_1001" and "Apk_test_1001"), a request of one terminal could resolve
// to the other. Every way terminals are added (POST /_sandbox/merchants, the fixtures, an import)
// refuses such a pair, so at most one terminal ever matches.

/** True when one key ends with the other (equal keys too): two terminals may not hold them both. */
export function publicKeysClash(a: string, b: string): boolean {
  return a.endsWith(b) || b.endsWith(a);
}

/** How `key` clashes with `other`, for a message: 'is "other"', 'ends with "other"' or 'is the end of "other"'. */
export function publicKeyClashText(key: string, other: string): string {
  if (key === other) return `is ${JSON.stringify(other)}`;
  return key.endsWith(other) ? `ends with ${JSON.stringify(other)}` : `is the end of ${JSON.stringify(other)}`;
}

/** The reason a message gives for refusing a clash. */
export const PUBLIC_KEY_RULE =
  'public keys of different terminals may never end with one another, since encrypted_data is matched to its terminal by the public_key it ends with';

/**
 * The first two items whose public keys clash (the shorter key first), or undefined. n log n:
 * reversed and sorted, a key that is the end of others sorts right before them.
 */
export function findPublicKeyClash<T extends { publicKey: string }>(items: readonly T[]): [T, T] | undefined {
  const reversed = items
    .map((item) => ({ item, key: item.publicKey.split('').reverse().join('') }))
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  for (let i = 1; i < reversed.length; i++) {
    if (reversed[i].key.startsWith(reversed[i - 1].key)) return [reversed[i - 1].item, reversed[i].item];
  }
  return undefined;
}
