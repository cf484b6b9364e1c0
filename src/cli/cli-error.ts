// An error a CLI user can fix: printed as one line, exit code 1.

/** A user-facing CLI failure. */
export class CliError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CliError';
  }
}
