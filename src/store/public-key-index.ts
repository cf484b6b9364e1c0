// Terminals by public key, for the two questions a key's ending answers: which terminal ends
// encrypted_data (the gateway's specification appends the public key to the ciphertext), and which
// stored key clashes with a new one (docs/decisions.md: public keys never end with one another).
// Both are a few map lookups and a binary search, however many terminals there are.
import { insertionPoint } from '../domain/sorted.js';

const reverse = (text: string) => text.split('').reverse().join('');

/** The first index of `sorted` whose `reversed` is not below `key`. */
const lowerBound = (sorted: ReadonlyArray<{ reversed: string }>, key: string) => insertionPoint(sorted, (item) => item.reversed < key);

/** What the index reads of a terminal; generic, so the index needs nothing of the repository that holds it. */
export interface KeyedTerminal {
  terNo: number;
  merchantId: string;
  publicKey: string;
}

/** Every terminal by public key, kept up to date as merchants come and go. */
export class PublicKeyIndex<Terminal extends KeyedTerminal> {
  private readonly byKey = new Map<string, Terminal>();
  /** How many public keys have each length; a text's endings are tried at these lengths, longest first. */
  private readonly lengthCounts = new Map<number, number>();
  private lengths: number[] = [];
  /** Terminals sorted by their reversed public key: the keys ending with a given text sit together. */
  private readonly byReversedKey: Array<{ reversed: string; terminal: Terminal }> = [];

  constructor(terminals: readonly Terminal[]) {
    this.add(terminals);
  }

  /** Adds terminals (of a merchant made on demand, once committed). */
  add(terminals: readonly Terminal[]): void {
    for (const terminal of terminals) {
      this.byKey.set(terminal.publicKey, terminal);
      this.lengthCounts.set(terminal.publicKey.length, (this.lengthCounts.get(terminal.publicKey.length) ?? 0) + 1);
      const reversed = reverse(terminal.publicKey);
      this.byReversedKey.splice(lowerBound(this.byReversedKey, reversed), 0, { reversed, terminal });
    }
    this.sortLengths();
  }

  /** Drops one merchant's terminals (it was deleted). */
  removeMerchant(merchantId: string): void {
    for (const [key, terminal] of this.byKey) {
      if (terminal.merchantId !== merchantId) continue;
      this.byKey.delete(key);
      const left = (this.lengthCounts.get(key.length) ?? 0) - 1;
      if (left > 0) this.lengthCounts.set(key.length, left);
      else this.lengthCounts.delete(key.length);
      this.byReversedKey.splice(lowerBound(this.byReversedKey, reverse(key)), 1);
    }
    this.sortLengths();
  }

  /**
   * The terminal whose public key `text` ends with: the one terminal there can be, or the longest
   * such key in a database written before clashing keys were refused.
   */
  terminalEndingWith(text: string): Terminal | undefined {
    for (const length of this.lengths) {
      const terminal = length <= text.length ? this.byKey.get(text.slice(-length)) : undefined;
      if (terminal) return terminal;
    }
    return undefined;
  }

  /** A terminal (other than terminal `exceptTerNo`) whose public key is `publicKey`, ends it, or ends with it. */
  clashWith(publicKey: string, exceptTerNo?: number): Terminal | undefined {
    const other = (terminal: Terminal | undefined) => (terminal && terminal.terNo !== exceptTerNo ? terminal : undefined);
    for (const length of this.lengths) {
      const ending = length <= publicKey.length ? other(this.byKey.get(publicKey.slice(-length))) : undefined;
      if (ending) return ending;
    }
    const reversed = reverse(publicKey);
    for (
      let i = lowerBound(this.byReversedKey, reversed);
      i < this.byReversedKey.length && this.byReversedKey[i].reversed.startsWith(reversed);
      i++
    ) {
      const longer = other(this.byReversedKey[i].terminal);
      if (longer) return longer;
    }
    return undefined;
  }

  private sortLengths(): void {
    this.lengths = [...this.lengthCounts.keys()].sort((a, b) => b - a);
  }
}
