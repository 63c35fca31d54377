import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import { parseArgs } from 'node:util';
import { startSandbank } from './testing.ts';
import { SANDBANK_URL } from './testing-shared.ts';

/**
 * `sandbank test [--port N] -- COMMAND [ARGS...]`: one Sandbank for a whole test run whose runner has
 * no global setup of its own (`node --test` on Node 20), or for any command: starts the server (as
 * startSandbank() does: PGlite in memory, a free loopback port), runs the command with the server's
 * url in SANDBANK_URL (each test file then signs up a merchant of its own with sandbankMerchant()),
 * stops the server when the command ends and exits with the command's exit code.
 */
export const TEST_USAGE = `Usage: sandbank test [--port N] -- COMMAND [ARGS...]

Starts a Sandbank for a test run (PGlite in memory, on 127.0.0.1 and a free port, or --port N), runs
COMMAND with the server's base URL in SANDBANK_URL, stops the server when COMMAND ends and exits with
COMMAND's exit code. In the test files, sandbankMerchant() from sandbank/testing signs up a merchant
of their own on it (docs/guide/testing.md):

  npx sandbank test -- node --test`;

export async function runTest(argv: string[]): Promise<number> {
  const split = argv.indexOf('--');
  const own = split >= 0 ? argv.slice(0, split) : argv.filter((arg) => arg === '-h' || arg === '--help');
  const command = split >= 0 ? argv.slice(split + 1) : argv;
  const { values } = parseArgs({
    args: own,
    options: { port: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
  });
  if (values.help || command.length === 0) {
    process.stdout.write(`${TEST_USAGE}\n`);
    return values.help ? 0 : 2;
  }
  if (values.port !== undefined && !/^\d+$/.test(values.port))
    throw new Error('--port must be a port number (0: a free one).');
  const [program = '', ...args] = command;
  const sandbank = await startSandbank(values.port === undefined ? {} : { port: Number(values.port) });
  try {
    process.stderr.write(
      `sandbank test: a Sandbank at ${sandbank.url} (${SANDBANK_URL}) for ${command.join(' ')}\n`,
    );
    return await new Promise<number>((resolve) => {
      const child = spawn(program, args, {
        stdio: 'inherit',
        env: { ...process.env, [SANDBANK_URL]: sandbank.url },
        // npx and the runners' commands are .cmd scripts on Windows.
        shell: process.platform === 'win32',
      });
      // A Ctrl-C or a supervisor's SIGTERM reaches the command, which ends the run; the server is
      // stopped after it.
      const forward = (signal: NodeJS.Signals) => child.kill(signal);
      const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
      for (const signal of signals) process.on(signal, forward);
      const done = (code: number) => {
        for (const signal of signals) process.off(signal, forward);
        resolve(code);
      };
      child.once('error', (error) => {
        process.stderr.write(`sandbank test: could not run ${program}: ${error.message}\n`);
        done(127);
      });
      child.once('exit', (code, signal) =>
        done(code ?? (signal ? 128 + (constants.signals[signal] ?? 0) : 1)),
      );
    });
  } finally {
    await sandbank.close();
  }
}
