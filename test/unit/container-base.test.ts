// The container project's base image (test/container/podman.ts currentBase): the newest base of
// the last week is built on, so CI builds the image on cached layers; an older one is made again.
import { describe, expect, it } from 'vitest';
import { BASE_KEPT_DAYS, baseTag, currentBase } from '../container/podman.js';

const NOW = new Date('2026-11-29T14:00:00Z');
const tag = (day: string) => `localhost/paysandbox-base:trixie-${day}`;

describe('the base the container image builds on', () => {
  it('is the newest base made in the last week', () => {
    expect(currentBase([tag('2026-11-24'), tag('2026-11-27'), 'localhost/paysandbox-base:test', tag('2026-11-25')], NOW)).toBe(
      tag('2026-11-27'),
    );
    expect(currentBase([tag('2026-11-29')], NOW)).toBe(baseTag(NOW));
  });

  it('is made again once the newest is a week old, and never taken from a tag that is not a day', () => {
    expect(BASE_KEPT_DAYS).toBe(7);
    expect(currentBase([tag('2026-11-23')], NOW)).toBe(tag('2026-11-23'));
    expect(currentBase([tag('2026-11-22'), tag('2026-11-01')], NOW)).toBeUndefined();
    expect(currentBase(['localhost/paysandbox-base:test', 'localhost/paysandbox-base:h-container', ''], NOW)).toBeUndefined();
    // A base dated after today (a clock set back) is not this week's either.
    expect(currentBase([tag('2026-12-05')], NOW)).toBeUndefined();
  });
});
