/** arabic-name-to-en ships no types: one function, Arabic-script name in, English spelling out. */
declare module 'arabic-name-to-en' {
  export default function toEnName(arabic: string): string;
}
