/**
 * The agent's options as the fence-agents protocol delivers them (doc/FenceAgentAPI.md): `name=value`
 * lines on stdin (Pacemaker), or `--name=value` arguments (medik8s Fence Agents Remediation, a person
 * at a shell), or both. Read strictly: an unknown name, a missing value or a garbled line is an error
 * that names it, before anything is contacted. Within one source the last value of a name wins, as the
 * protocol says; the same name with two different values in the two sources is an error.
 */
import { UsageError } from '../usage.js';
import {
  type AgentParameter,
  canonicalName,
  PASSED_BY_CALLERS,
  parameterNamed,
  parameterWithShort,
} from './parameters.js';

/** The values given, by parameter name (`plug`, `power_timeout`), as text; booleans as `true`/`false`. */
export type RawOptions = ReadonlyMap<string, string>;

/** More than any real configuration: a stdin that keeps coming is not one. */
export const MAX_STDIN_BYTES = 64 * 1024;

const TRUE = new Set(['1', 'yes', 'on', 'true']);
const FALSE = new Set(['0', 'no', 'off', 'false']);

/** A boolean's value as the protocol spells it (`1`, `yes`, `on`, `true`, and their opposites). */
function booleanText(p: AgentParameter, value: string, where: string): string {
  const v = value.trim().toLowerCase();
  if (TRUE.has(v)) return 'true';
  if (FALSE.has(v)) return 'false';
  throw new UsageError(`${p.name} takes 1/yes/on/true or 0/no/off/false, not "${value}" (${where})`);
}

/** The parameter a name stands for; `null` for the names callers pass that the agent ignores. */
function lookUp(name: string, where: string): AgentParameter | null {
  const canonical = canonicalName(name);
  if (PASSED_BY_CALLERS.includes(canonical)) return null;
  const p = parameterNamed(canonical);
  if (!p) throw new UsageError(`unknown option "${name}" (${where}; see fencer agent --help)`);
  return p;
}

/** The value of one `name=value` (or a bare boolean `name`), checked for its parameter's kind. */
function store(
  into: Map<string, string>,
  p: AgentParameter | null,
  value: string | undefined,
  where: string,
) {
  if (!p) return;
  if (p.type === 'boolean') {
    into.set(p.name, value === undefined ? 'true' : booleanText(p, value, where));
    return;
  }
  if (value === undefined) throw new UsageError(`${p.name} needs a value (${where})`);
  into.set(p.name, value);
}

const looksLikeOption = (arg: string): boolean => /^--?[A-Za-z]/.test(arg);

/** `--name=value`, `--name value`, `--flag`, `-n value`, `-nvalue`, `-v`. Nothing else. */
export function parseCommandLine(args: readonly string[]): RawOptions {
  const options = new Map<string, string>();
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? '';
    const where = `argument ${arg}`;
    const long = /^--([^=]+)(?:=(.*))?$/s.exec(arg);
    const short = long ? null : /^-([A-Za-z])(.*)$/s.exec(arg);
    if (!long && !short) throw new UsageError(`unexpected argument "${arg}": options are --name=value`);
    const p = long
      ? lookUp(long[1] ?? '', where)
      : (parameterWithShort(short?.[1] ?? '') ?? lookUp(`-${short?.[1]}`, where));
    let value = long ? long[2] : short?.[2] || undefined;
    // A value in the next argument: `--plug node-a`, `-o off` (a flag takes none, nor does an option).
    const next = args[i + 1];
    if (value === undefined && p?.type !== 'boolean' && next !== undefined && !looksLikeOption(next)) {
      value = next;
      i++;
    }
    store(options, p, value, where);
  }
  return options;
}

/** `name=value` lines; `#` comments and blank lines skipped; quotes around a value dropped. */
export function parseStdin(text: string): RawOptions {
  const options = new Map<string, string>();
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const where = `stdin line ${index + 1}`;
    const equals = line.indexOf('=');
    const name = equals < 0 ? line : line.slice(0, equals).trim();
    const value = equals < 0 ? undefined : line.slice(equals + 1).replace(/^"(.*)"$/s, '$1');
    store(options, lookUp(name, where), value, where);
  });
  return options;
}

/** Both sources as one; a name given twice with different values is refused, not guessed. */
export function mergeOptions(commandLine: RawOptions, stdin: RawOptions): RawOptions {
  const merged = new Map(stdin);
  for (const [name, value] of commandLine) {
    const other = stdin.get(name);
    if (other !== undefined && other !== value) {
      throw new UsageError(`${name} is given twice: "${value}" on the command line and "${other}" on stdin`);
    }
    merged.set(name, value);
  }
  return merged;
}

/**
 * Reads stdin to its end, unless it is a terminal (nobody is typing options at the agent). A caller
 * with nothing to say gives /dev/null or closes it (Pacemaker writes its options and closes).
 */
export async function readStdin(stdin: NodeJS.ReadStream | NodeJS.ReadableStream): Promise<string> {
  if ((stdin as NodeJS.ReadStream).isTTY) return '';
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stdin) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
    size += buffer.length;
    if (size > MAX_STDIN_BYTES)
      throw new UsageError(`stdin holds more than ${MAX_STDIN_BYTES} bytes of options`);
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * The options of one call: the command line's, and stdin's when the command line names no action (so
 * medik8s FAR, which always passes `--action`, never has the agent wait on a stdin it leaves open).
 */
export async function readAgentInput(
  args: readonly string[],
  stdin: () => NodeJS.ReadStream | NodeJS.ReadableStream,
): Promise<RawOptions> {
  const commandLine = parseCommandLine(args);
  if (commandLine.has('action')) return commandLine;
  return mergeOptions(commandLine, parseStdin(await readStdin(stdin())));
}
