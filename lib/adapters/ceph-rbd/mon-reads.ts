/** The two reads the fencer makes of the mon: its blocklist, and its command table (for the dialect). */
import { BlocklistFormatError, type ListedEntry, parseBlocklist } from './blocklist.js';
import {
  type BlocklistDialect,
  DESCRIBE_COMMANDS,
  dialectFromDescriptions,
  listCommand,
  type MonCommand,
} from './commands.js';
import { CephApiError } from './errors.js';
import type { RestfulClient } from './restful-client.js';

/** `osd blocklist ls`, parsed; a list the fencer cannot read is a failed command, never evidence. */
export function readBlocklist(
  client: RestfulClient,
  dialect: BlocklistDialect,
  signal?: AbortSignal,
): Promise<ListedEntry[]> {
  return changeThenReadBlocklist(client, dialect, [], signal);
}

/**
 * Runs `changes` (blocklist adds or removals) one request each, then `osd blocklist ls` once
 * they have all ended: the listing that proves them (see {@link RestfulClient.runThenRead}).
 */
export async function changeThenReadBlocklist(
  client: RestfulClient,
  dialect: BlocklistDialect,
  changes: readonly MonCommand[],
  signal?: AbortSignal,
): Promise<ListedEntry[]> {
  const command = listCommand(dialect);
  const answer = await client.runThenRead(changes, command, signal);
  try {
    return parseBlocklist(answer.outb);
  } catch (error) {
    if (!(error instanceof BlocklistFormatError)) throw error;
    throw new CephApiError(
      { fault: 'CommandFailed', operation: command.prefix, retryable: false, cephMessage: answer.outs },
      error.message,
      { cause: error },
    );
  }
}

/** How this mon spells its blocklist commands, from `get_command_descriptions`. */
export async function askDialect(client: RestfulClient, signal?: AbortSignal): Promise<BlocklistDialect> {
  const answer = await client.run(DESCRIBE_COMMANDS, signal);
  const failed = (message: string, cause?: unknown) =>
    new CephApiError(
      { fault: 'CommandFailed', operation: DESCRIBE_COMMANDS.prefix, retryable: false },
      message,
      { cause },
    );
  let dialect: BlocklistDialect | undefined;
  try {
    dialect = dialectFromDescriptions(answer.outb);
  } catch (error) {
    throw failed(`unreadable command table: ${(error as Error).message}`, error);
  }
  if (!dialect) throw failed('the mon offers no osd blocklist (or blacklist) command');
  return dialect;
}
