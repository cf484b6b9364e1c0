// Authentication challenges (the page at authurl): opening one, judging OTPs, and completing it by
// page, control API or clock. What completion means is up to the challenge's subject (an S2S
// transaction, a /v1/ payment, ...), which registers itself here.
import { newSecret, newToken } from '../domain/ids.js';
import { judgeOtp, OTP_TRIES } from '../domain/outcomes.js';
import { statusText } from '../domain/order-status.js';
import type { AutoAuthenticate } from '../domain/outcome-spec.js';
import { SandboxError, present } from '../errors.js';
import type { Challenge } from '../store/challenges-repo.js';
import type { AuthenticationOutcome, ChallengeKind, ChallengeState } from '../domain/vocabularies.js';
import type { ServiceDeps } from './deps.js';
import type { JobRunner } from './job-runner.js';

/** How a challenge ended. */
export type Verdict = 'pass' | 'fail' | 'cancel' | 'expire';

/** The control API's words for verdicts. */
export const OUTCOME_VERDICTS: Record<AuthenticationOutcome, Verdict> = {
  approve: 'pass',
  decline: 'fail',
  cancel: 'cancel',
  expire: 'expire',
};

/** What owns a challenge: applies the verdict and says where the customer goes next. */
export interface ChallengeSubject {
  /** Applies the verdict to the subject; runs inside the completing transaction. */
  complete(challenge: Challenge, verdict: Verdict): void;
  /** The URL the customer is sent to (303) once the challenge is over. */
  returnUrl(challenge: Challenge): string;
  /** Whether the challenge's own expiry should be ignored (a gateway that never answers). */
  neverExpires?(challenge: Challenge): boolean;
}

const STATE_OF: Record<Verdict, Exclude<ChallengeState, 'open'>> = {
  pass: 'passed',
  fail: 'failed',
  cancel: 'cancelled',
  expire: 'expired',
};

/** The result of one OTP entry. */
export type OtpResult = { done: true; challenge: Challenge } | { done: false; triesLeft: number };

/** Opens, judges and completes challenges. */
export class Authentication {
  private readonly subjects = new Map<string, ChallengeSubject>();
  /** --auto-authenticate: every new challenge completes by itself after a delay of sandbox time. */
  private readonly auto: AutoAuthenticate | undefined;

  constructor(
    private readonly deps: ServiceDeps,
    private readonly jobs: JobRunner,
  ) {
    jobs.register('challenge.expire', (job) => this.expireIfOpen(job.subjectId));
    this.auto = deps.config.autoAuthenticate;
    jobs.register('challenge.auto', (job) => {
      if (this.find(job.subjectId)?.state === 'open') this.complete(job.subjectId, OUTCOME_VERDICTS[job.payload.outcome]);
    });
  }

  /** Registers the owner of a subject type. */
  registerSubject(type: string, subject: ChallengeSubject): void {
    this.subjects.set(type, subject);
  }

  /** The customer-facing URL of a challenge (the authurl). */
  url(token: string): string {
    return `${this.deps.publicUrl.base}/authenticate/${token}`;
  }

  /** Opens a challenge and schedules its expiry; call inside store.tx. */
  open(input: {
    subjectType: string;
    subjectId: string;
    merchantId: string;
    kind: ChallengeKind;
    returnUrl: string;
    details: Record<string, string>;
    lifetimeMs?: number;
  }): Challenge {
    const now = this.deps.clock.now();
    const challenge: Challenge = {
      token: newToken(),
      subjectType: input.subjectType,
      subjectId: input.subjectId,
      merchantId: input.merchantId,
      kind: input.kind,
      state: 'open',
      triesLeft: OTP_TRIES,
      expiresAt: now + (input.lifetimeMs ?? this.deps.config.challengeLifetimeMs),
      returnUrl: input.returnUrl,
      // The page's forms carry this token; a form posted from anywhere else is refused.
      details: { ...input.details, csrf: newSecret() },
      createdAt: now,
      completedAt: null,
    };
    this.deps.store.challenges.insert(challenge);
    this.jobs.schedule('challenge.expire', challenge.token, challenge.expiresAt);
    if (this.auto) this.jobs.schedule('challenge.auto', challenge.token, now + this.auto.delayMs, { outcome: this.auto.outcome });
    return challenge;
  }

  /** The challenge behind a page token, expired first (as of its expires_at) if its time ran out; undefined if unknown. */
  find(token: string): Challenge | undefined {
    const challenge = this.deps.store.challenges.get(token);
    if (challenge?.state === 'open' && challenge.expiresAt <= this.deps.clock.now()) {
      // As of its expiry, as the job would have: the transaction's tdate is when it ran out.
      this.deps.clock.asOf(challenge.expiresAt, () => this.expireIfOpen(token));
      return this.deps.store.challenges.get(token);
    }
    return challenge;
  }

  /** The latest challenge of a subject. */
  forSubject(subjectType: string, subjectId: string): Challenge | undefined {
    return this.deps.store.challenges.forSubject(subjectType, subjectId);
  }

  /**
   * Completes the open challenge of an S2S transID or a /v1/ payment id, whichever `id` is (control
   * API, CLI, library): 404 naming `param` when it is neither, 409 when it has nothing open.
   */
  completeFor(id: string, verdict: Verdict, param = 'id'): { subjectType: 'transaction' | 'payment'; challenge: Challenge } {
    const { store } = this.deps;
    const transaction = store.transactions.get(id);
    const payment = transaction ? undefined : store.payments.get(id);
    if (!transaction && !payment) {
      throw new SandboxError(
        'resource_missing',
        `no transaction or payment ${id}: pass an S2S transID or a /v1/ payment id (pay_...) of this sandbox`,
        param,
      );
    }
    const subjectType = transaction ? 'transaction' : 'payment';
    const challenge = this.forSubject(subjectType, id);
    if (!challenge) {
      const status = transaction
        ? `its status is ${statusText(transaction.orderStatus)}`
        : `its status is ${present(payment, `payment ${id}`).status}`;
      throw new SandboxError('invalid_state', `${subjectType} ${id} has no authentication to complete (${status})`);
    }
    return { subjectType, challenge: this.complete(challenge.token, verdict) };
  }

  /** Where the customer goes once the challenge is over. */
  returnUrl(challenge: Challenge): string {
    return this.subject(challenge).returnUrl(challenge);
  }

  /** Judges an OTP: 123456 passes, 000000 fails, anything else costs one of three tries. */
  submitOtp(token: string, otp: string): OtpResult {
    const { store } = this.deps;
    this.expireIfDue(token);
    return store.tx(() => {
      const challenge = this.openChallenge(token);
      const verdict = judgeOtp(otp.trim());
      if (verdict === 'retry' && challenge.triesLeft > 1) {
        store.challenges.setTriesLeft(token, challenge.triesLeft - 1);
        return { done: false as const, triesLeft: challenge.triesLeft - 1 };
      }
      return { done: true as const, challenge: this.completeOpen(challenge, verdict === 'pass' ? 'pass' : 'fail') };
    });
  }

  /** Completes an open challenge with a verdict; 409 when it is already over. */
  complete(token: string, verdict: Verdict): Challenge {
    this.expireIfDue(token);
    return this.deps.store.tx(() => this.completeOpen(this.openChallenge(token), verdict));
  }

  /** Commits a due expiry on its own, so the 409 "already expired" that follows does not roll it back. */
  private expireIfDue(token: string): void {
    this.find(token);
  }

  private openChallenge(token: string): Challenge {
    const challenge = this.find(token);
    if (!challenge) throw new SandboxError('resource_missing', 'no such authentication', 'token');
    if (challenge.state !== 'open')
      throw new SandboxError('invalid_state', `the authentication is already ${challenge.state}; it cannot change again`);
    return challenge;
  }

  private completeOpen(challenge: Challenge, verdict: Verdict): Challenge {
    const state = STATE_OF[verdict];
    if (!this.deps.store.challenges.complete(challenge.token, state, this.deps.clock.now())) {
      throw new SandboxError('invalid_state', 'the authentication was completed by another request');
    }
    this.jobs.cancel('challenge.expire', challenge.token);
    const done = { ...challenge, state, completedAt: this.deps.clock.now() };
    this.subject(challenge).complete(done, verdict);
    return done;
  }

  private expireIfOpen(token: string): void {
    const challenge = this.deps.store.challenges.get(token);
    if (challenge?.state !== 'open') return;
    if (this.subject(challenge).neverExpires?.(challenge)) return;
    this.deps.store.tx(() => this.completeOpen(challenge, 'expire'));
  }

  private subject(challenge: Challenge): ChallengeSubject {
    const subject = this.subjects.get(challenge.subjectType);
    if (!subject) throw new Error(`no subject registered for challenges of type ${challenge.subjectType}`);
    return subject;
  }
}
