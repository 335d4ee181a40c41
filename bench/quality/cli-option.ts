/** The value after `--<name>` in a program's arguments, if given. */
export function option(argv: string[], name: string): string | undefined {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1] : undefined;
}
