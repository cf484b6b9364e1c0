import { describe, expect, it } from 'vitest';
import { tierUpFlag } from '../../src/runtime/tier-up.js';

describe("sandbox start's V8 tier-up", () => {
  it('lowers the interrupt budget to a sixteenth of V8 default', () => {
    expect(tierUpFlag(['--max-semi-space-size=2', '--v8-pool-size=1'])).toBe('--interrupt-budget=4224');
  });

  it('leaves a budget the process was started with alone, in either spelling', () => {
    expect(tierUpFlag(['--interrupt-budget=100000'])).toBeUndefined();
    expect(tierUpFlag(['--interrupt_budget=100000'])).toBeUndefined();
    expect(tierUpFlag(['--interrupt-budget-for-feedback-allocation=940'])).toBe('--interrupt-budget=4224');
  });
});
