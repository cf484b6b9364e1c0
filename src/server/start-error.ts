// The one kind of start-up failure the CLI prints as a single line and the library rejects with.

/** A start-up failure worth one clear line (port in use, database in use, unwritable db, bad fixtures). */
export class StartError extends Error {}
