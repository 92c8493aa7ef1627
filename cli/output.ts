/**
 * Where `svc` writes: human lines (coloured only on a TTY, never with
 * NO_COLOR) or one JSON document per run for scripts (`--json`).
 */
export interface Streams {
  stdout: { write(chunk: string): unknown; isTTY?: boolean };
  stderr: { write(chunk: string): unknown; isTTY?: boolean };
}

export type Tone = 'ok' | 'warn' | 'error' | 'dim' | 'bold';

const ANSI: Record<Tone, [string, string]> = {
  ok: ['\u001b[32m', '\u001b[39m'],
  warn: ['\u001b[33m', '\u001b[39m'],
  error: ['\u001b[31m', '\u001b[39m'],
  dim: ['\u001b[2m', '\u001b[22m'],
  bold: ['\u001b[1m', '\u001b[22m'],
};

/**
 * Colour decision, in the order https://no-color.org and FORCE_COLOR users
 * expect: NO_COLOR (any non-empty value) wins, then FORCE_COLOR, then "is the
 * stream a terminal that is not `dumb`".
 */
export function colourEnabled(stream: { isTTY?: boolean }, env: Record<string, string | undefined>): boolean {
  if (env['NO_COLOR'] !== undefined && env['NO_COLOR'] !== '') return false;
  const force = env['FORCE_COLOR'];
  if (force !== undefined && force !== '') return force !== '0' && force !== 'false';
  return stream.isTTY === true && env['TERM'] !== 'dumb';
}

export interface Output {
  readonly json: boolean;
  /** A human line on stdout (suppressed in JSON mode: the command's result document says it all). */
  line(text: string): void;
  /** A human line on stderr (warnings, progress); suppressed in JSON mode. */
  note(text: string): void;
  /** Wraps text in a colour when colour is on for stdout. */
  paint(tone: Tone, text: string): string;
  /** The one JSON document of a `--json` run. */
  result(doc: Record<string, unknown>): void;
}

export function createOutput(streams: Streams, env: Record<string, string | undefined>, json: boolean): Output {
  const colour = !json && colourEnabled(streams.stdout, env);
  const colourErr = !json && colourEnabled(streams.stderr, env);
  const paintWith = (on: boolean) => (tone: Tone, text: string) =>
    on ? `${ANSI[tone][0]}${text}${ANSI[tone][1]}` : text;
  const paintErr = paintWith(colourErr);
  return {
    json,
    line: (text) => {
      if (!json) streams.stdout.write(`${text}\n`);
    },
    note: (text) => {
      if (!json)
        streams.stderr.write(
          `${text.replace(/^(warning|error):/, (m) => paintErr(m.startsWith('e') ? 'error' : 'warn', m))}\n`,
        );
    },
    paint: paintWith(colour),
    result: (doc) => {
      if (json) streams.stdout.write(`${JSON.stringify(doc, null, 2)}\n`);
    },
  };
}

/** Prints a failure: one line on stderr (`svc: error: …`), or `{ok:false,…}` on stdout with --json. */
export function printFailure(
  streams: Streams,
  env: Record<string, string | undefined>,
  json: boolean,
  code: string,
  message: string,
  extras?: Record<string, unknown>,
): void {
  if (json) {
    streams.stdout.write(`${JSON.stringify({ ok: false, error: code, message, ...extras }, null, 2)}\n`);
    return;
  }
  const tag = colourEnabled(streams.stderr, env) ? `${ANSI.error[0]}error${ANSI.error[1]}` : 'error';
  streams.stderr.write(`svc: ${tag}: ${message}\n`);
}
