// Text from outside (a file's bytes, a server's answer) made safe to print on a terminal.

/**
 * Text as a terminal may show it: control characters (which could move the cursor or change colours), DEL,
 * C1 controls and the replacement character of undecodable bytes written as escapes.
 * @example printable('Unexpected token \u007f') // 'Unexpected token \\x7f'
 */
export function printable(text: string): string {
  return text.replace(/[\p{Cc}\ufffd]/gu, (char) => {
    if (char === '\t' || char === '\n') return char;
    const code = char.charCodeAt(0);
    return code === 0xfffd ? '\\ufffd' : `\\x${code.toString(16).padStart(2, '0')}`;
  });
}
