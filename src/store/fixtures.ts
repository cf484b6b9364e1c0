// The fixtures file (fixtures/default.json, --fixtures): the merchants, terminals and keys every
// start seeds (credentials-repo.ts seed()). Read and checked here, so a bad file is one line that
// names the file and the field.
import { readFileSync } from 'node:fs';
import * as z from 'zod';
import { findPublicKeyClash, publicKeyClashText, PUBLIC_KEY_RULE } from '../domain/public-keys.js';
import { errorMessage } from '../errors.js';

const fixturesSchema = z.object({
  merchants: z
    .array(
      z.object({
        id: z.string().regex(/^[A-Za-z0-9_]+$/),
        name: z.string().min(1),
        webhook_secret: z.string().min(8),
        api_keys: z.array(z.string().regex(/^sk_test_[A-Za-z0-9_]+$/, 'API keys must start with sk_test_')).default([]),
        terminals: z
          .array(z.object({ terNO: z.number().int().positive(), public_key: z.string().min(4), private_key: z.string().min(4) }))
          .default([]),
      }),
    )
    .min(1)
    .superRefine((merchants, ctx) => {
      const terminals = merchants.flatMap((m, i) =>
        m.terminals.map((t, j) => ({ publicKey: t.public_key, path: `merchants.${i}.terminals.${j}.public_key` })),
      );
      const clash = findPublicKeyClash(terminals);
      if (!clash) return;
      const [shorter, longer] = clash;
      ctx.addIssue({
        code: 'custom',
        path: longer.path
          .split('.')
          .slice(1)
          .map((part) => (/^\d+$/.test(part) ? Number(part) : part)),
        message: `${JSON.stringify(longer.publicKey)} ${publicKeyClashText(longer.publicKey, shorter.publicKey)} (${shorter.path}); ${PUBLIC_KEY_RULE}: give one of them another public_key`,
      });
    }),
});

/** The fixtures file shape (fixtures/default.json). */
export type Fixtures = z.infer<typeof fixturesSchema>;

/** Reads and checks a fixtures file; the error names the file and the first bad field. */
export function readFixtures(path: string): Fixtures {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new Error(`cannot read fixtures ${path}: ${errorMessage(err)}`);
  }
  const parsed = fixturesSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`fixtures ${path}: ${issue.path.join('.')}: ${issue.message}`);
  }
  return parsed.data;
}
