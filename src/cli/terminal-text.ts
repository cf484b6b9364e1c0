// Text from the network, made safe to print on a terminal. A webhook's headers and body, a
// handler's answer, anything a merchant's request stored in the sandbox: any of it can carry
// control characters, and a terminal obeys them. "\r" or ESC [2K repaints the line a command is
// printing (a forged webhook's body could rewrite "signature INVALID" to read "signature valid"),
// ESC [8m hides what follows, an 8-bit CSI (U+009B) does the same on terminals that take C1
// controls, and the bidirectional overrides (U+202E...) reorder what is shown. Every command
// prints such text through these functions, which escape what the sandbox's log escapes
// (runtime/logger.ts: \r, \x1b, \u202e); the colours the CLI adds itself go around the escaped text.
import { escapeControls, escapeJsonControls } from '../runtime/logger.js';

/** Network text for one line of output: every control character escaped, line breaks included. */
export function terminalText(text: string): string {
  return escapeControls(text);
}

/** Network text of several lines (a body): its line breaks kept, every other control character escaped. */
export function terminalLines(text: string): string {
  return text.split('\n').map(escapeControls).join('\n');
}

/** JSON.stringify for output: the same JSON value (a parser reads back exactly what was sent), no control character raw. */
export function terminalJson(value: unknown, indent?: number): string {
  return escapeJsonControls(JSON.stringify(value, null, indent));
}
