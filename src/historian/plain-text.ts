/**
 * Text as a reader sees it on a terminal: ANSI escape sequences (colours, cursor moves, OSC titles), orphaned SGR
 * codes whose escape byte a pty plugin lost (`[38;5;161m`), carriage-return overprints and other control characters
 * removed. Linear in the text; never throws.
 */
export function plainText(text: string): string {
  if (!CONTROL.test(text) && !text.includes("\r") && !ORPHAN_SGR.test(text)) return text
  return text
    .replace(ESCAPE_SEQUENCE, "")
    .replace(ORPHAN_SGR_ALL, "")
    .replace(/\r+\n/g, "\n")
    .replace(/\r+$/, "")
    .replace(OVERPRINT, "")
    .replace(CONTROL_ALL, "")
}

/**
 * CSI (`ESC [ … final`), OSC (`ESC ] … BEL|ST`) and the other escapes: `ESC` with intermediate bytes and a final
 * byte (`ESC ( B` from `tput sgr0`, `ESC 7` / `ESC 8` cursor save and restore, `ESC c` reset).
 */
const ESCAPE_SEQUENCE = /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]{0,4096}(?:\u0007|\u001b\\)?|\u001b[ -/]*[0-~]/g
/** An SGR code whose escape byte is gone: `[0m`, `[1;31m`, `[38;5;161m`. */
const ORPHAN_SGR = /\[(?:\d{1,3};){0,4}\d{1,3}m/
const ORPHAN_SGR_ALL = /\[(?:\d{1,3};){0,4}\d{1,3}m/g
/** A line that a carriage return overprinted keeps only what was written last. */
const OVERPRINT = /^[^\n]*\r(?!\n)/gm
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/
const CONTROL_ALL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g
