/** Command-line options of the bench scripts: `--name value` and bare `--flag`. */
const argv = process.argv.slice(2);

/** The value after `--name`, else the fallback. */
export function option(name: string, fallback: string): string {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? (argv[i + 1] ?? fallback) : fallback;
}

/** Whether `--name` was given. */
export function flag(name: string): boolean {
  return argv.includes(`--${name}`);
}
