// Authentication challenges: the 3-D Secure / bank / UPI page behind an authurl. A challenge
// belongs to a subject (an S2S transaction, a /v1/ payment, ...) and is single-use.
import type { Db } from './open-database.js';
import type { ChallengeKind, ChallengeState } from '../domain/vocabularies.js';

/** A stored challenge. `details` holds what the page shows (amount, merchant, masked card...). */
export interface Challenge {
  token: string;
  subjectType: string;
  subjectId: string;
  merchantId: string;
  kind: ChallengeKind;
  state: ChallengeState;
  triesLeft: number;
  expiresAt: number;
  returnUrl: string;
  details: Record<string, string>;
  createdAt: number;
  completedAt: number | null;
}

const COLUMNS = `token, subject_type AS subjectType, subject_id AS subjectId, merchant_id AS merchantId, kind, state,
  tries_left AS triesLeft, expires_at AS expiresAt, return_url AS returnUrl, details, created_at AS createdAt, completed_at AS completedAt`;

function fromRow(row: (Omit<Challenge, 'details'> & { details: string }) | undefined): Challenge | undefined {
  return row ? { ...row, details: JSON.parse(row.details) } : undefined;
}

/** Prepared statements over the challenges table. */
export function createChallengesRepo(db: Db) {
  const insert = db.prepare(`INSERT INTO challenges (token, subject_type, subject_id, merchant_id, kind, state, tries_left, expires_at,
    return_url, details, created_at) VALUES (@token, @subjectType, @subjectId, @merchantId, @kind, @state, @triesLeft, @expiresAt,
    @returnUrl, @details, @createdAt)`);
  const byToken = db.prepare(`SELECT ${COLUMNS} FROM challenges WHERE token = ?`);
  const bySubject = db.prepare(
    `SELECT ${COLUMNS} FROM challenges WHERE subject_type = ? AND subject_id = ? ORDER BY created_at DESC LIMIT 1`,
  );
  const complete = db.prepare("UPDATE challenges SET state = ?, completed_at = ? WHERE token = ? AND state = 'open'");
  const setTries = db.prepare('UPDATE challenges SET tries_left = ? WHERE token = ?');

  return {
    insert: (c: Omit<Challenge, 'completedAt'>) => insert.run({ ...c, details: JSON.stringify(c.details) }),
    get: (token: string) => fromRow(byToken.get(token) as never),
    forSubject: (subjectType: string, subjectId: string) => fromRow(bySubject.get(subjectType, subjectId) as never),
    /** Moves an open challenge to a final state; false when it was no longer open (lost race). */
    complete: (token: string, state: Exclude<ChallengeState, 'open'>, now: number) => complete.run(state, now, token).changes === 1,
    setTriesLeft: (token: string, tries: number) => setTries.run(tries, token),
  };
}
