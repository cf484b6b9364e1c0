// The runner's side of a JavaScript action, written with Node's standard library only: an action
// runs from its checkout with no `npm install`. Inputs arrive as INPUT_<NAME> variables (the name
// upper-cased, spaces as _, hyphens kept: INPUT_PRINT-LOG); outputs, state for the post step and
// variables for the later steps are appended to the files GITHUB_OUTPUT, GITHUB_STATE and
// GITHUB_ENV name, in the toolkit's `name<<delimiter` form (a value may hold any line); the post
// step reads its state back as STATE_<name>. Workflow commands (::error::, ::group::) go to stdout.
import { randomUUID } from 'node:crypto';
import { appendFileSync } from 'node:fs';
import { EOL } from 'node:os';

/** Input `name` as the runner passes it (its default from action.yml when the workflow gives none), trimmed; '' when unset. */
export function input(name) {
  return (process.env[`INPUT_${name.replace(/ /g, '_').toUpperCase()}`] ?? '').trim();
}

/** What the main step saved under `name` for the post step; '' when it saved nothing. */
export function state(name) {
  return process.env[`STATE_${name}`] ?? '';
}

function fileCommand(variable, name, value) {
  const file = process.env[variable];
  if (!file) throw new Error(`${variable} is not set: this script runs as a step of a GitHub Actions job`);
  const delimiter = `ghadelimiter_${randomUUID()}`;
  appendFileSync(file, `${name}<<${delimiter}${EOL}${value}${EOL}${delimiter}${EOL}`);
}

/** Sets the step's output `name`. */
export function setOutput(name, value) {
  fileCommand('GITHUB_OUTPUT', name, String(value));
}

/** Saves `value` for the post step, which reads it as STATE_<name>. */
export function saveState(name, value) {
  fileCommand('GITHUB_STATE', name, String(value));
}

/** Sets environment variable `name` for the job's later steps. */
export function exportVariable(name, value) {
  fileCommand('GITHUB_ENV', name, String(value));
}

// A command's message may not hold a line break, nor a property a comma or colon (the toolkit's escaping).
const escapeData = (text) => String(text).replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
const escapeProperty = (text) => escapeData(text).replace(/:/g, '%3A').replace(/,/g, '%2C');

/** A line the runner shows as an error annotation of the step. */
export function error(message, title = 'paysandbox') {
  process.stdout.write(`::error title=${escapeProperty(title)}::${escapeData(message)}${EOL}`);
}

/** A line the runner shows as a warning annotation of the step. */
export function warning(message, title = 'paysandbox') {
  process.stdout.write(`::warning title=${escapeProperty(title)}::${escapeData(message)}${EOL}`);
}

/** Has the runner print `value` as *** in every later line of the job's log (a secret output). */
export function mask(value) {
  if (value !== '') process.stdout.write(`::add-mask::${escapeData(value)}${EOL}`);
}

/** Plain lines of the step's log. */
export function info(text) {
  process.stdout.write(`${text}${EOL}`);
}

/**
 * Prints `text` (a log file's content) as it is: inside a collapsed group when `title` is given,
 * and between ::stop-commands:: and its token, so no line of it is taken for a workflow command.
 */
export function printVerbatim(text, title) {
  const token = randomUUID();
  if (title) info(`::group::${escapeData(title)}`);
  info(`::stop-commands::${token}`);
  process.stdout.write(text.endsWith('\n') || text === '' ? text : `${text}${EOL}`);
  info(`::${token}::`);
  if (title) info('::endgroup::');
}
